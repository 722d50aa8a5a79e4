/* The one table of commands: what each is called, how it is used and what
 * it is for.  It drives dispatch (main.c), --help and the command list
 * (cli.c) and completion (cmd_complete.c).  Each handler and its flags live
 * in the command's own cmd_*.c, beside the code that reads them. */
#include <string.h>

#include "cli.h"
#include "nodesel.h"

/* The default command comes first; the completion entry point is hidden
 * from help because shells call it, not people.  A NULL handler ends the
 * table. */
const struct command commands[] = {
	{
		.name = NULL,
		.usage = "[NODE...] [flags]",
		.summary = "Show how the GPUs of each node are shared (the default command)",
		.flags = { inspect_flags, nodesel_scheme_flags },
		.run = inspect_run,
		.examples = "# Every node that shares GPUs, one line each\n"
			    "\n"
			    "# The pods on each GPU of two nodes\n"
			    "node-a node-b -d\n"
			    "# One node pool, with its labels and GPU models\n"
			    "--pool np-cgpu -o wide\n"
			    "# Pods of one namespace, busiest nodes first, for a script\n"
			    "-d -n ml --sort-by allocated --no-headers\n"
			    "# Free GPU memory per node\n"
			    "-o json | jq -r '.nodes[] | [.name, .memory.free] | @tsv'",
	},
	{
		.name = "top",
		.usage = "[NODE...] [flags]",
		.summary = "Show GPU sharing live, following changes as they happen",
		.flags = { top_flags, nodesel_scheme_flags },
		.run = top_run,
		.examples = "# Every GPU node, live\n"
			    "\n"
			    "# One node pool, refreshed every 2 seconds where watching is refused\n"
			    "--pool np-cgpu -r 2s",
	},
	{
		.name = "usage",
		.usage = "[NODE...] [flags]",
		.summary = "Show GPU memory in use (from Prometheus) beside the allocation",
		.flags = { usage_flags, nodesel_scheme_flags },
		.run = usage_run,
		.examples = "# Memory in use per GPU, from the Prometheus of the cluster's monitoring\n"
			    "--prometheus monitoring/prometheus-k8s:9090\n"
			    "# Each pod's allocation beside its use, on one node pool\n"
			    "-d --pool np-cgpu --prometheus-url http://127.0.0.1:9090\n"
			    "# Pods that use less than a tenth of what they hold, for a script\n"
			    "-d --idle-below 10 -o json --prometheus monitoring/prometheus-k8s:9090",
	},
	{
		.name = "mode",
		.usage = "MODE [NODE...] [-l SELECTOR | --pool NAME] [flags]\n\n"
			 "Modes: exclusive (whole GPUs; label value default), share (GPU memory shared, no isolation),\n"
			 "       isolate (shared with cGPU memory isolation; cgpu), core (memory and compute isolated; core_mem)",
		.summary = "Put nodes into a GPU sharing mode by setting their labels",
		.flags = { mode_flags, nodesel_flags },
		.run = mode_run,
		.first_arg_values = "exclusive share isolate core",
		.examples = "# What would change, without changing anything\n"
			    "isolate --pool np-cgpu --dry-run=client\n"
			    "# Ask the API server to check the change\n"
			    "share --pool np-cgpu-no-isolation --dry-run=server\n"
			    "# Change a pool without asking, then restart its device plugin\n"
			    "isolate --pool np-cgpu --yes --restart\n"
			    "# Give one node whole GPUs again\n"
			    "exclusive node-a",
	},
	{
		.name = "restart",
		.usage = "[NODE...] [-l SELECTOR | --pool NAME] [flags]",
		.summary = "Restart the GPU device plugin on nodes so that label changes take effect",
		.flags = { restart_flags, nodesel_flags },
		.run = restart_run,
		.examples = "# The device plugin of one node pool, one node at a time\n"
			    "--pool np-cgpu\n"
			    "# Two nodes at a time, waiting at most 2 minutes for each\n"
			    "node-a node-b --timeout 2m --max-parallel 2\n"
			    "# Which pods would be deleted, with a DaemonSet named\n"
			    "node-a --daemonset kube-system/gpushare-device-plugin-ds --dry-run",
	},
	{
		.name = "fit",
		.usage = "[NAMESPACE/NAME | -f FILE | --memory QUANTITY [--gpus N] [--core PCT]] [flags]",
		.summary = "Tell whether a pod would fit on the GPUs now, where, and if not why",
		.flags = { fit_flags, nodesel_scheme_flags },
		.run = fit_run,
		.first_arg_values = "namespaces",
		.examples = "# Would a pod asking for 8 GiB on one GPU fit now, and where\n"
			    "--memory 8Gi\n"
			    "# Two GPUs of 12 GiB each, with half of each GPU's compute\n"
			    "--memory 12Gi --gpus 2 --core 50\n"
			    "# The pods of a Deployment, from its manifest\n"
			    "-f deploy.yaml\n"
			    "# Why a pending pod waits\n"
			    "ml/train-0",
	},
	{
		.name = "defrag",
		.usage = "[NAMESPACE/NAME | -f FILE | --memory QUANTITY [--gpus N] [--core PCT]] [flags]",
		.summary = "Tell which pods to move so that a request fits, or how fragmented each pool is",
		.flags = { defrag_flags, nodesel_scheme_flags },
		.run = defrag_run,
		.first_arg_values = "namespaces",
		.examples = "# The fewest moves after which 12 GiB fits on one GPU of the cgpu nodes\n"
			    "--memory 12Gi --scheme cgpu\n"
			    "# Carry the plan out, asking first\n"
			    "--memory 12Gi --scheme cgpu --execute\n"
			    "# Per pool: stranded memory, and the whole GPUs that moves could free\n"
			    "--scheme cgpu",
	},
	{
		.name = "help",
		.usage = "[COMMAND]",
		.summary = "Help about any command",
		.run = help_run,
		.first_arg_values = "commands",
		.examples = "# What a command does and the flags it takes\n"
			    "mode",
	},
	{
		.name = "version",
		.usage = "[flags]",
		.summary = "Print the plugin's version and the commit it was built from",
		.flags = { version_flags },
		.run = version_run,
		.first_arg_values = "",
		.examples = "# The version and the commit it was built from\n\n",
	},
	{
		.name = "completion",
		.usage = "SHELL",
		.summary = "Print the completion script of bash, zsh or fish, as the package installs it",
		.run = completion_run,
		.first_arg_values = "bash zsh fish",
		.examples = "# Complete the plugin's commands, flags and node names in every new bash\n"
			    "bash > ~/.local/share/bash-completion/completions/kubectl-inspect-cgpu\n"
			    "# The same for zsh (a folder of $fpath) and fish\n"
			    "zsh > \"${fpath[1]}/_kubectl-inspect-cgpu\"\n"
			    "fish > ~/.config/fish/completions/kubectl-inspect-cgpu.fish",
	},
	{
		.name = "__complete",
		.usage = "WORDS... CURRENT",
		.summary = "Print completion candidates for the words typed so far (used by shells and kubectl)",
		.run = complete_run,
	},
	{ 0 },
};

const struct command *cli_find_command(const char *name)
{
	for (const struct command *c = commands + 1; c->run; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
