/* Command line: one table of commands drives dispatch, help and completion.
 *
 * kubectl passes every argument through unchanged, so the plugin accepts
 * kubectl's global flags (struct kube_overrides and a few more) anywhere on
 * the line, next to each command's own flags.
 *
 * Uses the client (kube.h); used by every cmd_*.c.
 */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "kube.h"

/* Flags every command accepts. */
struct global_opts {
	struct kube_overrides ov;
	const char *as_groups[17]; /* --as-group, repeatable (at most 16) */
	size_t n_as_groups;
	bool all_namespaces; /* -A */
	long request_timeout_ms;
	int verbosity; /* -v / --v */
	bool consistent_reads; /* --consistent-read */
	bool all_contexts;	 /* --all-contexts: every context of the kubeconfig */
	bool ignore_unreachable; /* --ignore-unreachable: a partial fleet is a success */
	bool help;
};

/* One flag of a command, as data: drives parsing, --help and completion. */
struct flag {
	const char *name;  /* long name without dashes */
	char shorthand;	   /* 0 = none */
	const char *arg;   /* value placeholder ("NAME"), NULL for a boolean */
	const char *help;  /* one line */
	const char *values; /* completion hint: "nodes", "pools", "contexts", "namespaces", "schemes",
			     * "labels", "dra-drivers", or a space-separated word list; NULL = none */
};

/* A flag whose placeholder ends in ",..." ("NAME,...") is a list, as
 * pflag's string slices: each value given adds to it, and the command
 * reads them joined with commas. */
#define CLI_LIST_ARG(name) name ",..."

/* A flag whose placeholder is in brackets ("[DURATION]") takes its value
 * only after "=" and is "true" when given alone, as a pflag flag with
 * NoOptDefVal: "--wait" or "--wait=2m", never "--wait 2m". */
#define CLI_OPTIONAL_ARG(name) "[" name "]"

static inline bool cli_flag_optional(const struct flag *f)
{
	return f->arg && f->arg[0] == '[';
}

/* A command's flag tables, and room for the NULL after them. */
#define CLI_FLAG_TABLES 3

struct cli_ctx {
	const char *prog; /* the name the plugin was run as, for usage lines */
	const struct command *cmd; /* the command being run */
	struct global_opts g;
	/* Human-readable output: streams that show any outside text written
	 * to them in its visible form (termsafe.h), line breaks kept. */
	FILE *out, *errout;
	/* stdout itself, for JSON and YAML documents, which carry the exact
	 * values; NULL = out. */
	FILE *data_out;
};

struct command {
	const char *name;    /* NULL for the default command (inspect) */
	const char *usage;   /* "[NODE...] [flags]" */
	const char *summary; /* one line, for the command list */
	/* Its flags, each table terminated by {0}: its own, then the block of
	 * node-selection flags it takes (nodesel.h); NULL after the last.
	 * cli_parse_flags numbers their values in this order. */
	const struct flag *flags[CLI_FLAG_TABLES];
	/* argv[0] is the command name; global flags already removed.  Returns
	 * the exit code (0, or 1 after reporting per-item failures itself), or
	 * -1 with *err set (main prints it). */
	int (*run)(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
	/* Completion of the first positional argument, as struct flag.values;
	 * NULL = node names (the positionals of most commands). */
	const char *first_arg_values;
	/* --help's Examples: lines of "# what it does" and of the arguments
	 * that follow the command's name (printed after the name run as). */
	const char *examples;
};

/* Each command's handler and flags, in its cmd_*.c; the table that names
 * them, with their usage and help, is commands.c. */
int inspect_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int top_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int usage_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int mode_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int restart_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int fit_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int defrag_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int help_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int version_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int complete_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
int completion_run(struct cli_ctx *ctx, int argc, char **argv, struct kerr *err);
extern const struct flag inspect_flags[], top_flags[], usage_flags[], mode_flags[], restart_flags[], fit_flags[],
	defrag_flags[],
	version_flags[];

/* [0] is the default command; a NULL run ends the table. */
extern const struct command commands[];
/* The named command (not the default one), or NULL. */
const struct command *cli_find_command(const char *name);
extern const struct flag global_flags[];

/* The flags a table holds (0 for NULL). */
size_t cli_flag_count(const struct flag *flags);

/* Remove kubectl's global flags from argv (in place) into *g.  Returns the
 * new argc, or -1 with a usage error.  Stops at "--". */
int cli_take_global_flags(int argc, char **argv, struct global_opts *g, struct kerr *err);

/* Take grouped shorthands apart as kubectl's flag parser does: "-dn ml" is
 * "-d -n ml", "-dnml" is "-d -n=ml", "-Ad=false" is "-A -d=false", using
 * cmd's flags and the global ones.  argv[0] is kept as it is.  Fills
 * *ret_argv (NULL-terminated) and *ret_buf, both to be freed by the caller,
 * and returns the new argc, or -1 with a usage error for an unknown letter. */
int cli_split_short_groups(const struct command *cmd, int argc, char **argv, char ***ret_argv, char **ret_buf,
			   struct kerr *err);

/* Parse a command's flags.  Values are stored in order in vals (index =
 * position in cmd->flags[0], then in cmd->flags[1]; booleans get "true",
 * or NULL when set to false); positional arguments are compacted to the
 * front of argv and their count returned, or -1 on error. */
int cli_parse_flags(const struct command *cmd, int argc, char **argv, const char **vals, struct kerr *err);
/* The values of list flags given more than once are joined by
 * cli_parse_flags into strings kept until this is called (by main). */
void cli_flags_release(void);
/* The items of a list flag's value as cli_parse_flags leaves it (values
 * given again joined by commas, each of them comma-separated itself), as
 * pflag reads a string slice: *ret_items (NULL-terminated) points into
 * *ret_buf, both malloc'd; empty items are skipped.  A value of no items
 * at all is a usage error naming flag ("--node").  -1 with err set. */
int cli_list_split(const char *list, const char *flag, char **ret_buf, char ***ret_items, size_t *ret_n,
		   struct kerr *err);

/* Print usage for a command (NULL = overview of the given table) with the
 * name we were run as. */
void cli_print_help(FILE *f, const char *prog, const struct command *table, const struct command *cmd);

/* The visible command of table closest to word (a mistyped command name),
 * or NULL when none is within two edits. */
const char *cli_suggest_command(const struct command *table, const char *word);

/* A Status error of one of the codes a or b is one the command goes on
 * without (a refused or absent extra, an object already gone): it is
 * released and true returned.  Any other error is left as it is. */
bool cli_drop_status(struct kerr *err, long a, long b);
/* The words for a KERR_BUDGET error (a list that would not end, a budget
 * broken), as a KERR_OTHER error; other errors are left alone. */
void cli_word_error(struct kerr *err);
/* The one line main would print for err, worded as above and in its
 * visible form (termsafe.h), without the newline; malloc'd, NULL when out
 * of memory. */
char *cli_error_line(const struct kerr *err);

/* kubectl's flag error: invalid argument "V" for "--FLAG" flag: WHAT (-1). */
int cli_flag_error(struct kerr *err, const char *flag, const char *v, const char *what);

/* A whole number from lo to hi given to --FLAG, or -1 with its flag error. */
int cli_parse_whole(const char *v, const char *flag, long lo, long hi, long *ret, struct kerr *err);

/* Before a write to n > 1 objects (WHAT: "nodes", "pods"): "QUESTION N
 * WHAT? [y/N]" on the terminal (stdin and stderr); 0 for yes, 1 for
 * anything else (after saying "nothing changed": not an error).  Without
 * a terminal, -1 saying how to VERB them anyway (--yes). */
int cli_confirm(struct cli_ctx *ctx, size_t n, const char *what, const char *question, const char *verb,
		struct kerr *err);

/* -n given where it changes nothing: said once on stderr, with why. */
void cli_namespace_unused(struct cli_ctx *ctx, const char *why);

/* --dry-run as kubectl spells it: none (also when v is NULL), client or
 * server; anything else is a usage error. */
enum cli_dry_run { CLI_DRY_NONE, CLI_DRY_CLIENT, CLI_DRY_SERVER };
/* The reason of a usage error after which kubectl prints no "See ...
 * --help" line. */
#define CLI_REASON_NO_HINT "NoUsageHint"
int cli_parse_dry_run(const char *v, enum cli_dry_run *ret, struct kerr *err);

/* --timeout DURATION of the commands that wait: a duration above zero in
 * *ms, which is left alone when v is NULL. */
int cli_parse_timeout(const char *v, long *ms, struct kerr *err);

/* --request-timeout syntax: "0", "5" (seconds), "1s", "2m", "3h", "500ms". */
int cli_parse_duration_ms(const char *s, long *ret);

#endif
