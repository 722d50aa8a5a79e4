/* The shell completion scripts the package installs (completions/),
 * embedded at build time by completions/embed.py. */
#ifndef COMPLETION_SCRIPTS_H
#define COMPLETION_SCRIPTS_H

#include <stddef.h>

struct completion_script {
	const char *shell; /* "bash", "zsh", "fish"; NULL ends the table */
	const char *text;
	size_t len;
};

extern const struct completion_script completion_scripts[];

#endif
