/* libFuzzer target: the input is a kubeconfig file.
 *
 * The bytes go into a memfd and are loaded through /proc/self/fd/N, the way
 * `--kubeconfig <(...)` would pass them; nothing is written to disk.  Exec
 * plugins are never run by loading, only described.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kerr.h"
#include "kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int env_done;
	struct kube_overrides ov = {0};
	struct kube_config cfg;
	struct kerr err = KERR_INIT;
	char path[64];
	char **names;
	int fd;

	if (!env_done) {
		unsetenv("KUBECONFIG");
		unsetenv("KUBERNETES_SERVICE_HOST");
		unsetenv("KUBERNETES_SERVICE_PORT");
		env_done = 1;
	}
	fd = memfd_create("kubeconfig", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			close(fd);
			return 0;
		}
		off += (size_t)n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ov.kubeconfig = path;
	if (kubeconfig_load(&ov, &cfg, &err) == 0)
		kube_config_release(&cfg);
	kerr_release(&err);

	/* the same file with a context and user chosen by flag */
	ov.context = "a";
	ov.user = "u";
	if (kubeconfig_load(&ov, &cfg, &err) == 0)
		kube_config_release(&cfg);
	kerr_release(&err);

	names = kubeconfig_context_names(&ov, &err);
	strv_free(names);
	kerr_release(&err);
	close(fd);
	return 0;
}
