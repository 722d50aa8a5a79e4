"""Label and field selectors, parsed and matched as the API server does, and label validation.

(Not named selectors.py: that would hide the standard library's module, which socketserver imports.)"""

import re

FIELD_LABELS = {
	"nodes": {"metadata.name", "spec.unschedulable"},
	"pods": {"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
		"spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"},
	"daemonsets": {"metadata.name", "metadata.namespace"},
	"events": {"metadata.name", "metadata.namespace", "involvedObject.kind", "involvedObject.name",
		"involvedObject.namespace", "involvedObject.uid", "reason", "type"},
	"resourceslices": {"metadata.name", "spec.nodeName", "spec.driver"},
	"resourceclaims": {"metadata.name", "metadata.namespace"},
	"resourceclaimtemplates": {"metadata.name", "metadata.namespace"},
	"deviceclasses": {"metadata.name"},
}

LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
	"and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
	"regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
	"with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
	"is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
PREFIX_MSG = ("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
	"'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
	"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS1123_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class SelectorError(Exception):
	pass


_SPECIALS = ("!=", "==", "=", "!", "(", ")", ",", ">", "<")


def _lex_selector(s):
	toks = []
	i = 0
	n = len(s)
	while i < n:
		c = s[i]
		if c.isspace():
			i += 1
			continue
		if c in "=!(),><":
			# Kubernetes' lexer reads the longest operator it knows, so "===" is "==" then "=".
			if s.startswith("!=", i) or s.startswith("==", i):
				toks.append(("op", s[i:i + 2]))
				i += 2
			else:
				toks.append(("op", c))
				i += 1
			continue
		j = i
		while j < n and not s[j].isspace() and s[j] not in "=!(),><":
			j += 1
		word = s[i:j]
		if word in ("in", "notin"):
			toks.append(("kw", word))
		else:
			toks.append(("id", word))
		i = j
	toks.append(("end", ""))
	return toks


def _tokname(t):
	if t[0] == "end":
		return "end of string"
	return t[1]


def parse_label_selector(s):
	"""Parses a label selector into a list of (key, op, values); raises SelectorError with Kubernetes' text."""
	reqs = []
	if s is None or s.strip() == "":
		return reqs
	toks = _lex_selector(s)
	pos = 0

	def err(msg):
		raise SelectorError("unable to parse requirement: " + msg)

	while True:
		t = toks[pos]
		if t[0] == "op" and t[1] == "!":
			pos += 1
			k = toks[pos]
			if k[0] != "id":
				err("found '%s', expected: identifier" % _tokname(k))
			reqs.append((k[1], "!", ()))
			pos += 1
		elif t[0] in ("id", "kw"):
			key = t[1]
			pos += 1
			o = toks[pos]
			if o[0] == "end" or (o[0] == "op" and o[1] == ","):
				reqs.append((key, "exists", ()))
			elif o[0] == "kw":
				pos += 1
				if toks[pos] != ("op", "("):
					err("found '%s', expected: '('" % _tokname(toks[pos]))
				pos += 1
				vals = []
				while True:
					v = toks[pos]
					if v[0] in ("id", "kw"):
						vals.append(v[1])
						pos += 1
						v = toks[pos]
					elif v == ("op", ",") or v == ("op", ")"):
						vals.append("")
					else:
						err("found '%s', expected: ',', ')' or identifier" % _tokname(v))
					if v == ("op", ","):
						pos += 1
						continue
					if v == ("op", ")"):
						pos += 1
						break
					err("found '%s', expected: ',' or ')'" % _tokname(v))
				reqs.append((key, o[1], tuple(vals)))
			elif o[0] == "op" and o[1] in ("=", "==", "!=", ">", "<"):
				pos += 1
				v = toks[pos]
				if v[0] in ("id", "kw"):
					val = v[1]
					pos += 1
				elif v[0] == "end" or v == ("op", ","):
					val = ""
				else:
					err("found '%s', expected: identifier" % _tokname(v))
				if o[1] in (">", "<") and not re.fullmatch(r"-?\d+", val):
					err("for 'Gt', 'Lt' operators, the value must be an integer")
				reqs.append((key, {"==": "="}.get(o[1], o[1]), (val,)))
			else:
				err("found '%s', expected: in, notin, =, ==, !=, gt, lt" % _tokname(o))
		else:
			err("found '%s', expected: !, identifier, or 'end of string'" % _tokname(t))
		t = toks[pos]
		if t[0] == "end":
			break
		if t == ("op", ","):
			pos += 1
			continue
		err("found '%s', expected: ',' or 'end of string'" % _tokname(t))
	for key, _op, _vals in reqs:
		if not valid_label_key(key):
			raise SelectorError('unable to parse requirement: invalid label key "%s": %s' % (key, label_key_problem(key)))
	return reqs


def label_match(reqs, labels):
	for key, op, vals in reqs:
		has = key in labels
		v = labels.get(key)
		if op == "exists":
			ok = has
		elif op == "!":
			ok = not has
		elif op == "=":
			ok = has and v == vals[0]
		elif op == "!=":
			ok = not has or v != vals[0]
		elif op == "in":
			ok = has and v in vals
		elif op == "notin":
			ok = not has or v not in vals
		elif op in (">", "<"):
			try:
				n = int(v)
			except (TypeError, ValueError):
				return False
			ok = n > int(vals[0]) if op == ">" else n < int(vals[0])
		else:
			ok = False
		if not ok:
			return False
	return True


def parse_field_selector(s, resource):
	reqs = []
	if s is None or s.strip() == "":
		return reqs
	for term in s.split(","):
		term = term.strip()
		if term == "":
			continue
		for op in ("!=", "==", "="):
			i = term.find(op)
			if i >= 0:
				field, value, op = term[:i].strip(), term[i + len(op):].strip(), "=" if op == "==" else op
				break
		else:
			raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, term))
		if field not in FIELD_LABELS[resource]:
			raise SelectorError("field label not supported: %s" % field)
		reqs.append((field, op, value))
	return reqs


def field_value(obj, field):
	cur = obj
	for part in field.split("."):
		if not isinstance(cur, dict):
			return ""
		cur = cur.get(part)
	if cur is None:
		return ""
	if isinstance(cur, bool):
		return "true" if cur else "false"
	return str(cur)


def field_match(reqs, obj):
	for field, op, value in reqs:
		v = field_value(obj, field)
		if op == "=" and v != value:
			return False
		if op == "!=" and v == value:
			return False
	return True


# ---------------------------------------------------------------------------------------------------------
# Label validation (used by PATCH)


def label_key_problem(key):
	if "/" in key:
		prefix, name = key.split("/", 1)
		if prefix == "":
			return "prefix part must be non-empty"
		if len(prefix) > 253:
			return "prefix part must be no more than 253 characters"
		if not DNS1123_RE.match(prefix):
			return PREFIX_MSG
	else:
		name = key
	if name == "":
		return "name part must be non-empty"
	if len(name) > 63:
		return "name part must be no more than 63 characters"
	if not NAME_RE.match(name):
		return NAME_PART_MSG
	return None


def valid_label_key(key):
	return label_key_problem(key) is None


def label_problems(labels):
	"""Returns a list of (field, message) for invalid labels, in Kubernetes' wording."""
	out = []
	if not isinstance(labels, dict):
		return out
	for key in sorted(labels):
		value = labels[key]
		p = label_key_problem(key)
		if p is not None:
			out.append(('Invalid value: "%s": %s' % (key, p)))
		if not isinstance(value, str):
			continue
		if len(value) > 63:
			out.append('Invalid value: "%s": must be no more than 63 characters' % value)
		elif not VALUE_RE.match(value):
			out.append('Invalid value: "%s": %s' % (value, LABEL_VALUE_MSG))
	return out
