# bash completion for kubectl-inspect-cgpu                    -*- shell-script -*-
# The plugin completes itself: `kubectl-inspect-cgpu __complete WORDS... CURRENT`
# prints candidates one per line and a final ":<directive>" line.

_kubectl_inspect_cgpu()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
	local line out=()

	while IFS= read -r line; do
		case $line in
		:*) ;;
		*) out+=("$line") ;;
		esac
	done < <(timeout 5 "${COMP_WORDS[0]}" __complete "${words[@]}" "$cur" 2>/dev/null)
	COMPREPLY=("${out[@]}")
}

complete -F _kubectl_inspect_cgpu kubectl-inspect-cgpu
