# bash completion for kubectl-inspect-cgpu                    -*- shell-script -*-
# The plugin completes itself: `kubectl-inspect-cgpu __complete WORDS... CURRENT`
# prints candidates one per line and a final ":<directive>" line (cobra's
# numbers: 2 = no space after the word, 4 = no file names).

_kubectl_inspect_cgpu()
{
	local -a words=() out=()
	local i w line prefix directive=0 glue=0

	# bash breaks words at "=" and ":" (COMP_WORDBREAKS); the plugin wants
	# "--pool=NAME" and "arn:aws:..." whole, so glue the pieces back together.
	for ((i = 1; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((${#words[@]})) && [[ $glue == 1 || $w == [=:] ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
		if [[ $w == [=:] ]]; then glue=1; else glue=0; fi
	done
	((${#words[@]})) || words=("")
	# what bash will replace is only the last piece: drop what comes before it
	prefix=${words[-1]%"${COMP_WORDS[COMP_CWORD]}"}

	while IFS= read -r line; do
		case $line in
		:[0-9]*) directive=${line#:} ;;
		*) out+=("${line#"$prefix"}") ;;
		esac
	done < <(timeout 5 "${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null)
	if ((directive & 2)); then
		compopt -o nospace 2>/dev/null
	fi
	COMPREPLY=("${out[@]}")
}

complete -F _kubectl_inspect_cgpu kubectl-inspect-cgpu kubectl-inspect_cgpu
