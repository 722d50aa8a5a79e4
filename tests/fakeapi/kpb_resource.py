"""The protobuf encoding of the resource.k8s.io kinds (ResourceSlice, ResourceClaim, DeviceClass,
ResourceClaimTemplate) in each version the fake server serves.

Each message is a table of its fields: (number, JSON key, how, nested message).  The numbers are those of
k8s.io/api resource/{v1,v1beta2,v1beta1}/generated.proto; v1beta2 has the messages of v1, v1beta1 keeps a
device's fields under "basic" and a request's flat (no "exactly").  How a field is written follows the Go
type behind it, as the generated code does: a value field always (an empty string, a zero, an empty
message), a pointer ("?") only when set, lists ("*") and maps ("{") element by element, maps sorted by key.
"""

from kpb_wire import f_bool, f_bytes, f_int, f_quantity, f_str, f_time, key, object_meta, raw_json, varint

KINDS = ("ResourceSlice", "ResourceClaim", "DeviceClass", "ResourceClaimTemplate")

# how: s string, i int64, b bool, q Quantity, t Time, raw RawExtension, m message, meta ObjectMeta;
# "?" a pointer (written when set); "*" repeated; "{" a map from strings; "=m" a message inlined in its parent
# (JSON's ",inline": the same object).
_DEVICE_FIELDS = (("attributes", "{m", "DeviceAttribute"), ("capacity", "{m", "DeviceCapacity"),
	("consumesCounters", "*m", "DeviceCounterConsumption"), ("nodeName", "s?"), ("nodeSelector", "m?", "NodeSelector"),
	("allNodes", "b?"), ("taints", "*m", "DeviceTaint"), ("bindsToNode", "b?"), ("bindingConditions", "*s"),
	("bindingFailureConditions", "*s"), ("allowMultipleAllocations", "b?"))
_NODE_ALLOCATABLE = (14, "nodeAllocatableResources", "{m", "NodeAllocatableResource")
_REQUEST_FIELDS = (("deviceClassName", "s"), ("selectors", "*m", "DeviceSelector"), ("allocationMode", "s"),
	("count", "i"))
_TOLERATIONS = ("tolerations", "*m", "DeviceToleration")
_CAPACITY = ("capacity", "m?", "CapacityRequirements")


def _numbered(first, fields):
	return tuple((first + i,) + f for i, f in enumerate(fields))


V1 = {
	"ResourceSlice": ((1, "metadata", "meta"), (2, "spec", "m", "ResourceSliceSpec")),
	"ResourceSliceSpec": ((1, "driver", "s"), (2, "pool", "m", "ResourcePool"), (3, "nodeName", "s?"),
		(4, "nodeSelector", "m?", "NodeSelector"), (5, "allNodes", "b?"), (6, "devices", "*m", "Device"),
		(7, "perDeviceNodeSelection", "b?"), (8, "sharedCounters", "*m", "CounterSet"),
		(9, "partitionTypeAttribute", "s?"), (10, "skipNodeOperations", "*s")),
	"ResourcePool": ((1, "name", "s"), (2, "generation", "i"), (3, "resourceSliceCount", "i")),
	"Device": ((1, "name", "s"),) + _numbered(2, _DEVICE_FIELDS) + (_NODE_ALLOCATABLE,),
	"DeviceAttribute": ((2, "int", "i?"), (3, "bool", "b?"), (4, "string", "s?"), (5, "version", "s?"),
		(6, "ints", "*i"), (7, "bools", "*b"), (8, "strings", "*s"), (9, "versions", "*s")),
	"DeviceCapacity": ((1, "value", "q"), (2, "requestPolicy", "m?", "CapacityRequestPolicy")),
	"CapacityRequestPolicy": ((1, "default", "q?"), (3, "validValues", "*q"),
		(4, "validRange", "m?", "CapacityRequestPolicyRange")),
	"CapacityRequestPolicyRange": ((1, "min", "q?"), (2, "max", "q?"), (3, "step", "q?")),
	"DeviceCounterConsumption": ((1, "counterSet", "s"), (2, "counters", "{m", "Counter")),
	"CounterSet": ((1, "name", "s"), (2, "counters", "{m", "Counter")),
	"Counter": ((1, "value", "q"),),
	"DeviceTaint": ((1, "key", "s"), (2, "value", "s"), (3, "effect", "s"), (4, "timeAdded", "t?")),
	"NodeAllocatableResource": ((3, "mapping", "m?", "NodeAllocatableMapping"),
		(4, "overhead", "m?", "NodeAllocatableOverhead")),
	"NodeAllocatableMapping": ((1, "capacityKey", "s?"), (2, "capacityMultiplier", "q?"), (3, "deviceMultiplier", "q?")),
	"NodeAllocatableOverhead": ((1, "perPod", "q?"), (2, "perContainer", "q?")),
	"NodeSelector": ((1, "nodeSelectorTerms", "*m", "NodeSelectorTerm"),),
	"NodeSelectorTerm": ((1, "matchExpressions", "*m", "NodeSelectorRequirement"),
		(2, "matchFields", "*m", "NodeSelectorRequirement")),
	"NodeSelectorRequirement": ((1, "key", "s"), (2, "operator", "s"), (3, "values", "*s")),

	"ResourceClaim": ((1, "metadata", "meta"), (2, "spec", "m", "ResourceClaimSpec"),
		(3, "status", "m", "ResourceClaimStatus")),
	"ResourceClaimSpec": ((1, "devices", "m", "DeviceClaim"),),
	"DeviceClaim": ((1, "requests", "*m", "DeviceRequest"), (2, "constraints", "*m", "DeviceConstraint"),
		(3, "config", "*m", "DeviceClaimConfiguration")),
	"DeviceRequest": ((1, "name", "s"), (2, "exactly", "m?", "ExactDeviceRequest"),
		(3, "firstAvailable", "*m", "DeviceSubRequest")),
	"ExactDeviceRequest": _numbered(1, _REQUEST_FIELDS + (("adminAccess", "b?"), _TOLERATIONS, _CAPACITY)),
	"DeviceSubRequest": ((1, "name", "s"),) + _numbered(2, _REQUEST_FIELDS + (_TOLERATIONS, _CAPACITY)),
	"DeviceSelector": ((1, "cel", "m?", "CELDeviceSelector"),),
	"CELDeviceSelector": ((1, "expression", "s"),),
	"DeviceToleration": ((1, "key", "s"), (2, "operator", "s"), (3, "value", "s"), (4, "effect", "s"),
		(5, "tolerationSeconds", "i?")),
	"CapacityRequirements": ((1, "requests", "{q"),),
	"DeviceConstraint": ((1, "requests", "*s"), (2, "matchAttribute", "s?"), (3, "distinctAttribute", "s?")),
	"DeviceClaimConfiguration": ((1, "requests", "*s"), (2, "", "=m", "DeviceConfiguration")),
	"DeviceConfiguration": ((1, "opaque", "m?", "OpaqueDeviceConfiguration"),),
	"OpaqueDeviceConfiguration": ((1, "driver", "s"), (2, "parameters", "raw")),
	"ResourceClaimStatus": ((1, "allocation", "m?", "AllocationResult"),
		(2, "reservedFor", "*m", "ResourceClaimConsumerReference"), (4, "devices", "*m", "AllocatedDeviceStatus")),
	"AllocationResult": ((1, "devices", "m", "DeviceAllocationResult"), (3, "nodeSelector", "m?", "NodeSelector"),
		(5, "allocationTimestamp", "t?")),
	"DeviceAllocationResult": ((1, "results", "*m", "DeviceRequestAllocationResult"),
		(2, "config", "*m", "DeviceAllocationConfiguration")),
	"DeviceRequestAllocationResult": ((1, "request", "s"), (2, "driver", "s"), (3, "pool", "s"), (4, "device", "s"),
		(5, "adminAccess", "b?"), (6, "tolerations", "*m", "DeviceToleration"), (7, "bindingConditions", "*s"),
		(8, "bindingFailureConditions", "*s"), (9, "shareID", "s?"), (10, "consumedCapacity", "{q"),
		(11, "skipNodeOperations", "*s")),
	"DeviceAllocationConfiguration": ((1, "source", "s"), (2, "requests", "*s"), (3, "", "=m", "DeviceConfiguration")),
	"ResourceClaimConsumerReference": ((1, "apiGroup", "s"), (3, "resource", "s"), (4, "name", "s"), (5, "uid", "s")),
	"AllocatedDeviceStatus": ((1, "driver", "s"), (2, "pool", "s"), (3, "device", "s"),
		(4, "conditions", "*m", "Condition"), (5, "data", "raw?"), (6, "networkData", "m?", "NetworkDeviceData"),
		(7, "shareID", "s?")),
	"Condition": ((1, "type", "s"), (2, "status", "s"), (3, "observedGeneration", "i"), (4, "lastTransitionTime", "t"),
		(5, "reason", "s"), (6, "message", "s")),
	"NetworkDeviceData": ((1, "interfaceName", "s"), (2, "ips", "*s"), (3, "hardwareAddress", "s")),

	"DeviceClass": ((1, "metadata", "meta"), (2, "spec", "m", "DeviceClassSpec")),
	"DeviceClassSpec": ((1, "selectors", "*m", "DeviceSelector"), (2, "config", "*m", "DeviceClassConfiguration"),
		(4, "extendedResourceName", "s?")),
	"DeviceClassConfiguration": ((1, "", "=m", "DeviceConfiguration"),),

	"ResourceClaimTemplate": ((1, "metadata", "meta"), (2, "spec", "m", "ResourceClaimTemplateSpec")),
	"ResourceClaimTemplateSpec": ((1, "metadata", "meta"), (2, "spec", "m", "ResourceClaimSpec")),
}

V1BETA1 = dict(V1, **{
	"ResourceSliceSpec": tuple((n, k, {"nodeName": "s", "allNodes": "b"}.get(k, how)) + tuple(rest)
		for n, k, how, *rest in V1["ResourceSliceSpec"]),
	"Device": ((1, "name", "s"), (2, "basic", "m?", "BasicDevice")),
	"BasicDevice": _numbered(1, _DEVICE_FIELDS) + (_NODE_ALLOCATABLE,),
	"DeviceRequest": ((1, "name", "s"),) + _numbered(2, _REQUEST_FIELDS + (("adminAccess", "b?"),
		("firstAvailable", "*m", "DeviceSubRequest"), _TOLERATIONS, _CAPACITY)),
	"DeviceSubRequest": ((1, "name", "s"),) + _numbered(2, _REQUEST_FIELDS) + _numbered(7, (_TOLERATIONS, _CAPACITY)),
})

SCHEMAS = {"resource.k8s.io/v1": V1, "resource.k8s.io/v1beta2": V1, "resource.k8s.io/v1beta1": V1BETA1}


def _scalar(num, how, v):
	"""One value of a scalar field; b"" when v is of the wrong type (or absent, for a pointer)."""
	base = how.rstrip("?")
	always = not how.endswith("?")
	if base == "s":
		return f_str(num, "" if v is None and always else v)
	if base == "i":
		return f_int(num, 0 if v is None and always else v)
	if base == "b":
		return f_bool(num, v, always)
	if base == "q":
		return f_quantity(num, v, always)
	if base == "t":
		return f_time(num, v, always)
	if base == "raw":
		if v is None:
			return f_bytes(num, b"") if always else b""
		return f_bytes(num, f_bytes(1, raw_json(v)))
	raise ValueError("kpb_resource: unknown field type %s" % how)


def _field(schema, num, how, sub, v):
	if how in ("m", "m?", "=m"):
		if not isinstance(v, dict):
			return f_bytes(num, b"") if how != "m?" else b""
		return f_bytes(num, encode(schema, sub, v))
	if how == "meta":
		return f_bytes(num, object_meta(v if isinstance(v, dict) else {}, managed=True))
	if how[0] == "*":
		items = v if isinstance(v, list) else []
		if how == "*m":
			return b"".join(f_bytes(num, encode(schema, sub, it)) for it in items if isinstance(it, dict))
		if how == "*i":
			return b"".join(key(num, 0) + varint(it) for it in items if isinstance(it, int) and not isinstance(it, bool))
		return b"".join(_scalar(num, how[1:], it) for it in items if it is not None)
	if how[0] == "{":
		out = bytearray()
		for k, val in sorted(v.items()) if isinstance(v, dict) else ():
			value = f_bytes(2, encode(schema, sub, val) if isinstance(val, dict) else b"") if how == "{m" else \
				f_quantity(2, val, always=True)
			out += f_bytes(num, f_str(1, k) + value)
		return bytes(out)
	return _scalar(num, how, v)


def encode(schema, name, d):
	"""The message name of schema from the JSON object d."""
	out = bytearray()
	for num, k, how, *sub in schema[name]:
		out += _field(schema, num, how, sub[0] if sub else None, d if how == "=m" else d.get(k))
	return bytes(out)


def item(kind, d):
	"""A resource.k8s.io object's own message, in the shape of its apiVersion."""
	return encode(SCHEMAS.get(d.get("apiVersion"), V1), kind, d)
