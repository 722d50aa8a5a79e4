# fish completion for kubectl-inspect-cgpu: the plugin prints the candidates
# itself (`__complete WORDS... CURRENT`), ending with a ":<directive>" line.
function __kubectl_inspect_cgpu_complete
    set -l words (commandline -opc)
    set -e words[1]
    timeout 5 kubectl-inspect-cgpu __complete $words (commandline -ct) 2>/dev/null | string match -v -r '^:'
end

complete -c kubectl-inspect-cgpu -f -a '(__kubectl_inspect_cgpu_complete)'
