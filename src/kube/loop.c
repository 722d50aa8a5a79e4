/* Where the client waits: curl_multi_perform and poll, finished transfers,
 * retries, Go's wording for transport errors.
 */
#include "kube.h"
#include "kube_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

/* Go's wording for what went wrong on the wire, as kubectl shows it. */
static int transport_error(struct xfer *x, CURLcode rc, struct kerr *err)
{
	struct kube_client *c = x->c;
	long oserr = 0, verify = 0;

	curl_easy_getinfo(x->easy, CURLINFO_OS_ERRNO, &oserr);
	if (x->tls_timeout)
		return kerr_set(err, KERR_TRANSPORT, "net/http: TLS handshake timeout");
	if (x->timed_out)
		rc = CURLE_OPERATION_TIMEDOUT;
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		if (oserr == ECONNREFUSED || strstr(x->errbuf, "refused")) {
			kerr_set(err, KERR_REFUSED, "connection refused");
			free(err->host);
			err->host = strdup(c->host_port);
			return -1;
		}
		return kerr_set(err, KERR_TRANSPORT, "dial tcp %s: %s", c->host_port,
				oserr ? strerror((int)oserr) : "connect failed");
	case CURLE_COULDNT_RESOLVE_HOST:
		return kerr_set(err, KERR_TRANSPORT, "dial tcp: lookup %s: no such host", c->host_port);
	case CURLE_COULDNT_RESOLVE_PROXY:
		return kerr_set(err, KERR_TRANSPORT, "proxyconnect tcp: lookup failed: no such host");
	case CURLE_OPERATION_TIMEDOUT:
		if (x->code == 0)
			return kerr_set(err, KERR_TRANSPORT,
					"net/http: request canceled (Client.Timeout exceeded while awaiting headers)");
		return kerr_set(err, KERR_TRANSPORT,
				"context deadline exceeded (Client.Timeout or context cancellation while reading body)");
	case CURLE_PEER_FAILED_VERIFICATION:
		curl_easy_getinfo(x->easy, CURLINFO_SSL_VERIFYRESULT, &verify);
		/* OpenSSL's X509_V_ERR_* codes */
		switch (verify) {
		case 2: case 18: case 19: case 20: case 21:
			return kerr_set(err, KERR_TRANSPORT,
					"tls: failed to verify certificate: x509: certificate signed by unknown authority");
		case 9: case 10:
			return kerr_set(err, KERR_TRANSPORT,
					"tls: failed to verify certificate: x509: certificate has expired or is not yet valid");
		case 62:
			break;
		default:
			if (!strstr(x->errbuf, "subject name") && !strstr(x->errbuf, "does not match"))
				return kerr_set(err, KERR_TRANSPORT,
						"tls: failed to verify certificate: x509: certificate verify failed (%ld)",
						verify);
		}
		return kerr_set(err, KERR_TRANSPORT,
				"tls: failed to verify certificate: x509: certificate is not valid for %s",
				c->cfg->tls_server_name && *c->cfg->tls_server_name ? c->cfg->tls_server_name
										     : c->host_port);
	case CURLE_SSL_CACERT_BADFILE:
		return kerr_set(err, KERR_TRANSPORT, "x509: the certificate authority data could not be read");
	case CURLE_SSL_CERTPROBLEM:
		return kerr_set(err, KERR_TRANSPORT, "tls: the client certificate could not be used");
	case CURLE_SSL_CONNECT_ERROR:
		if (strstr(x->errbuf, "certificate required") || strstr(x->errbuf, "alert bad certificate") ||
		    strstr(x->errbuf, "alert unknown ca"))
			return kerr_set(err, KERR_TRANSPORT, "remote error: tls: bad certificate");
		return kerr_set(err, KERR_TRANSPORT, "tls: handshake failure");
	case CURLE_GOT_NOTHING:
		return kerr_set(err, KERR_TRANSPORT, "EOF");
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		if (oserr == ECONNRESET || strstr(x->errbuf, "reset"))
			return kerr_set(err, KERR_TRANSPORT, "read tcp %s: connection reset by peer", c->host_port);
		return kerr_set(err, KERR_TRANSPORT, "unexpected EOF");
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return kerr_set(err, KERR_TRANSPORT, "unexpected EOF");
	case CURLE_BAD_CONTENT_ENCODING:
		return kerr_set(err, KERR_DECODE, "the server sent a body that could not be decompressed");
	default:
		/* curl's own words; they never hold a header value or key material */
		return kerr_set(err, KERR_TRANSPORT, "%s", x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
	}
}

static bool transport_retryable(CURLcode rc)
{
	switch (rc) {
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* Did the whole request leave before the transfer failed?  libcurl counts
 * the bytes of the request line and headers it wrote (REQUEST_SIZE) and of
 * the body (SIZE_UPLOAD); the body goes last, so a body written whole means
 * the request was.  A refused connection or a failed TLS handshake wrote
 * nothing: the server cannot have acted on it. */
static bool request_written(const struct xfer *x)
{
	long head = 0;
	curl_off_t body = 0;

	if (!x->easy || curl_easy_getinfo(x->easy, CURLINFO_REQUEST_SIZE, &head) != CURLE_OK ||
	    curl_easy_getinfo(x->easy, CURLINFO_SIZE_UPLOAD_T, &body) != CURLE_OK)
		return false;
	return head > 0 && body >= (curl_off_t)x->req_len;
}

static void log_response(struct xfer *x, const char *url_shown, CURLcode rc)
{
	struct kube_client *c = x->c;
	long long ms = now_ms() - x->started;

	if (rc == CURLE_OK && x->code)
		kube_log(c, "%s %s %ld %s in %lld milliseconds", x->method, url_shown, x->code, http_status_text(x->code), ms);
	else
		kube_log(c, "%s %s  in %lld milliseconds", x->method, url_shown, ms);
	if (c->verbosity >= 8 && x->log_hdrs.len) {
		char *save = NULL;

		kube_log(c, "Response Headers:");
		for (char *l = strtok_r(x->log_hdrs.data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			kube_log(c, "    %s", l);
	}
	if (c->verbosity >= 9) {
		const struct buf *b = x->log_body.len ? &x->log_body : &x->body;
		size_t n = b->len > LOG_BODY_MAX ? LOG_BODY_MAX : b->len;

		if (n)
			kube_log(c, "Response Body: %.*s%s", (int)n, b->data,
			      b->len > LOG_BODY_MAX || x->log_body.truncated ? " [truncated]" : "");
	}
	fflush(c->log);
}

/* A transfer finished (or failed) on curl's side: decide between retrying it
 * and reporting to its owner.  The owner's done callback frees nothing; x is
 * freed here afterwards unless the owner took it over (retry by owner). */
static void xfer_finished(struct xfer *x, CURLcode rc)
{
	struct kube_client *c = x->c;
	struct kerr err = KERR_INIT;
	long wait = -1;

	if (x->orphan) {
		x->orphan = false;
		x->state = XF_RUNNING;
		xfer_free(x);
		return;
	}

	if (c->verbosity >= 6) {
		char *shown = x->query ? xasprintf("%s%s?%s", c->display_url, x->path, x->query)
				       : xasprintf("%s%s", c->display_url, x->path);

		log_response(x, shown ? shown : x->path, rc);
		free(shown);
	}
	if (x->sink_failed) {
		err = x->sink_err;
		memset(&x->sink_err, 0, sizeof(x->sink_err));
		if (err.kind == KERR_NONE)
			kerr_set(&err, KERR_OTHER, "the response could not be processed");
		goto report;
	}
	if (rc != CURLE_OK) {
		bool expired = x->deadline && now_ms() >= x->deadline && !x->no_deadline;

		if (x->idempotent && !expired && transport_retryable(rc) && x->retries < MAX_RETRIES) {
			if (!x->delivered) {
				long backoff = 50L << (x->retries < 5 ? x->retries : 5);

				x->retries++;
				xfer_detach(x);
				xfer_queue(x, now_ms() + (backoff > 1000 ? 1000 : backoff));
				return;
			}
			x->midbody_failure = true;
		}
		transport_error(x, rc, &err);
		err.unanswered = request_written(x);
		goto report;
	}
	if (x->code == 401 && !x->auth_retried && (c->cfg->exec || c->cfg->token_file)) {
		/* an exec plugin's token may have been revoked: ask it again, once */
		x->auth_retried = true;
		x->force_cred = true;
		xfer_detach(x);
		xfer_queue(x, 0);
		return;
	}
	wait = kube_retry_after(x->code, x->retry_after);
	if (wait >= 0 && x->retries < MAX_RETRIES) {
		long long at = now_ms() + (wait > RETRY_AFTER_CAP_S ? RETRY_AFTER_CAP_S : wait) * 1000LL;

		if (!x->deadline || at < x->deadline) {
			x->retries++;
			xfer_detach(x);
			xfer_queue(x, at);
			return;
		}
	}
	if (xfer_body_cut(x)) {
		kerr_set(&err, KERR_TRANSPORT, "unexpected EOF");
		goto report;
	}
	if (x->code < 200 || x->code >= 300) {
		kube_status_error(x->code, x->resp_type, x->method, x->path, x->body.data, x->body.len, &err);
		goto report;
	}
report:
	xfer_detach(x);
	c->activity++;
	x->finished = true;
	x->done(x->ud, x, err.kind == KERR_NONE ? NULL : &err);
	kerr_release(&err);
}

/* Hand a client's queued transfers that are due to curl.  A transfer that
 * cannot start is reported like any failure. */
static void client_start_due(struct kube_client *c)
{
	long long now = now_ms();

	for (struct xfer *x = c->xfers, *next; x; x = next) {
		next = x->next;
		if (x->state == XF_QUEUED && x->wake_at <= now && x->done && !x->finished) {
			struct kerr e = KERR_INIT;

			if (xfer_start(x, &e) < 0) {
				c->activity++;
				x->finished = true;
				x->done(x->ud, x, &e);
				kerr_release(&e);
				next = c->xfers; /* restart the walk: done may have freed others */
				now = now_ms();
			}
		}
	}
}

/* Let go a client's transfers held at their first bytes whose hold has
 * ended: their deadline starts now, and libcurl hands the bytes it kept to
 * the write callback at once. */
static void client_resume_held(struct kube_client *c)
{
	for (struct xfer *x = c->xfers; x; x = x->next) {
		if (!x->paused || *x->hold || !x->easy)
			continue;
		x->paused = false;
		if (c->timeout_ms > 0)
			x->deadline = now_ms() + c->timeout_ms;
		c->loop->in_curl = true;
		curl_easy_pause(x->easy, CURLPAUSE_CONT);
		c->loop->in_curl = false;
	}
}

/* One round of the loop c is on: hand every client's due transfers to
 * curl, let curl work, dispatch what finished to its own client.  Returns
 * -1 only when curl itself fails. */
int client_perform(struct kube_client *c, struct kerr *err)
{
	struct kube_loop *l = c->loop;
	CURLMsg *m;
	CURLMcode mc;
	int running, left;

	/* a done callback may free clients of the loop: walk by index */
	for (size_t i = 0; i < l->nclients; i++) {
		client_resume_held(l->clients[i]);
		client_start_due(l->clients[i]);
	}
	l->in_curl = true;
	mc = curl_multi_perform(l->multi, &running);
	l->in_curl = false;
	if (mc != CURLM_OK)
		return kerr_set(err, KERR_OTHER, "curl_multi_perform failed");
	while ((m = curl_multi_info_read(l->multi, &left))) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (x)
			xfer_finished(x, m->data.result);
	}
	return 0;
}

/* How long the loop may sleep before a queued transfer of one of its
 * clients is due. */
static long next_wake(struct kube_loop *l, long timeout_ms)
{
	long long now = now_ms();

	for (size_t i = 0; i < l->nclients; i++) {
		for (struct xfer *x = l->clients[i]->xfers; x; x = x->next) {
			if (x->state == XF_QUEUED && x->done && !x->finished) {
				long long d = x->wake_at - now;

				if (d < 0)
					d = 0;
				if (timeout_ms < 0 || d < timeout_ms)
					timeout_ms = (long)d;
			}
		}
	}
	return timeout_ms;
}

int client_wait(struct kube_client *c, int fd, long timeout_ms, bool *fd_ready, struct kerr *err)
{
	struct curl_waitfd wfd = {.fd = fd, .events = CURL_WAIT_POLLIN};
	int numfds = 0;
	long t = next_wake(c->loop, timeout_ms);

	if (t < 0 || t > 1000)
		t = 1000;
	if (curl_multi_poll(c->multi, fd >= 0 ? &wfd : NULL, fd >= 0 ? 1 : 0, (int)t, &numfds) != CURLM_OK)
		return kerr_set(err, KERR_OTHER, "curl_multi_poll failed");
	if (fd >= 0 && (wfd.revents & (CURL_WAIT_POLLIN | CURL_WAIT_POLLPRI)))
		*fd_ready = true;
	return 0;
}

int kube_client_poll(struct kube_client *c, int fd, int timeout_ms, struct kerr *err)
{
	long long end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	unsigned long activity = c->activity;
	bool ready = false;

	for (;;) {
		long left;

		if (client_perform(c, err) < 0)
			return -1;
		left = (long)(end - now_ms());
		if (ready || c->activity != activity || left <= 0)
			break;
		if (client_wait(c, fd, left, &ready, err) < 0)
			return -1;
	}
	return ready ? 1 : 0;
}

/* Drive the client until *flag becomes true. */
int client_run_until(struct kube_client *c, const bool *flag, struct kerr *err)
{
	bool ready = false;

	for (;;) {
		if (client_perform(c, err) < 0)
			return -1;
		if (*flag)
			return 0;
		if (client_wait(c, -1, 1000, &ready, err) < 0)
			return -1;
	}
}

/* --- single requests ------------------------------------------------------ */
