# The completion every program of apenet-diag shares: tools/gen-completion.sh
# copies it into each program's file, after that program's table (its
# --completion-table: the words of the tables its --help prints), so a new
# command or option completes with no edit here.  The table, one fact a line:
#   link NAME...                  the link names (of every board variant)
#   cmd NAME                      a command (subcommand)
#   opt CTX NAME [ARG [WORD...]]  an option; CTX: - (anywhere), + (before the
#                                 command only), a command, or COMMAND:WORD
#                                 (after that first argument of it);
#                                 ARG: its value's placeholder (none: a flag)
#   arg CTX N ARG [WORD...]       CTX's Nth positional argument (ARG -: the
#                                 WORDs only; ending in ...: it repeats)
# A value completes by its placeholder: DIR directories, FILE and PATH
# files, L/LINK/PORT link names, USER users, HOST host names; else its
# WORDs, or nothing.

# _apenet_diag_opt CTXS NAME: the index of option NAME in contexts CTXS
# (a space-separated list) in the caller's arrays; 1 when there is none.
_apenet_diag_opt()
{
    local j
    for ((j = 0; j < ${#o_name[@]}; j++)); do
        [[ ${o_name[j]} == "$2" && " $1 " == *" ${o_ctx[j]} "* ]] && { REPLY=$j; return 0; }
    done
    return 1
}

# _apenet_diag_value ARG WORDS: COMPREPLY for a value.
_apenet_diag_value()
{
    if [[ -n $2 ]]; then
        COMPREPLY=($(compgen -W "$2" -- "$cur"))
        return
    fi
    case $1 in
        DIR) _filedir -d ;;
        *FILE* | PATH | *.json*) _filedir ;;
        L | LINK | PORT) COMPREPLY=($(compgen -W "$links" -- "$cur")) ;;
        USER) COMPREPLY=($(compgen -u -- "$cur")) ;;
        HOST) _known_hosts_real -- "$cur" ;;
        *) COMPREPLY=() ;;
    esac
}

# _apenet_diag_complete TABLE: the completion of the word under the cursor.
_apenet_diag_complete()
{
    local cur prev words cword split
    _init_completion -s || return

    # the table into arrays (no globbing: a placeholder may hold brackets)
    local - links= cmdlist= line n w
    local -a o_ctx=() o_name=() o_arg=() o_words=() a_ctx=() a_n=() a_arg=() a_words=() f
    set -f
    local IFS=$'\n'
    local -a lines=($1)
    IFS=' '
    for line in "${lines[@]}"; do
        f=($line)
        case ${f[0]} in
            link) links="${f[*]:1}" ;;
            cmd) cmdlist+=" ${f[1]}" ;;
            opt) o_ctx+=("${f[1]}") o_name+=("${f[2]}") o_arg+=("${f[3]-}") o_words+=("${f[*]:4}") ;;
            arg) a_ctx+=("${f[1]}") a_n+=("${f[2]}") a_arg+=("${f[3]}") a_words+=("${f[*]:4}") ;;
        esac
    done
    IFS=$' \t\n'
    set +f

    # The command, the contexts whose options apply (with its first
    # argument's: a fault of apenet-sim inject) and how many arguments
    # precede the cursor: every word before it, the values of options skipped.
    local cmd= npos=0 ctxs="- +" i REPLY
    for ((i = 1; i < cword; i++)); do
        w=${words[i]}
        if [[ $w == -?* ]]; then
            [[ $w != *=* ]] && _apenet_diag_opt "$ctxs" "$w" && [[ -n ${o_arg[REPLY]} ]] && ((i++))
        elif [[ -z $cmd && -n $cmdlist ]]; then
            cmd=$w ctxs="- $cmd"
        else
            npos=$((npos + 1))
            [[ $npos == 1 && -n $cmd ]] && ctxs="- $cmd $cmd:$w"
        fi
    done

    # The value of an option.
    if [[ $prev == -?* ]] && _apenet_diag_opt "$ctxs" "$prev" && [[ -n ${o_arg[REPLY]} ]]; then
        _apenet_diag_value "${o_arg[REPLY]}" "${o_words[REPLY]}"
        return
    fi
    $split && return

    local opts=
    for ((i = 0; i < ${#o_name[@]}; i++)); do
        [[ " $ctxs " == *" ${o_ctx[i]} "* ]] && opts+=" ${o_name[i]}"
    done
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    if [[ -z $cmd && -n $cmdlist ]]; then
        COMPREPLY=($(compgen -W "$cmdlist" -- "$cur"))
        return
    fi
    # A positional argument: the Nth of the command's, or the last one's
    # when it repeats.
    local want=$((npos + 1)) best=-1 c=${cmd:--}
    for ((i = 0; i < ${#a_n[@]}; i++)); do
        [[ ${a_ctx[i]} == "$c" ]] || continue
        if [[ ${a_n[i]} == "$want" ]] || [[ ${a_n[i]} -lt $want && ${a_arg[i]} == *... ]]; then
            best=$i
        fi
    done
    if ((best >= 0)); then
        _apenet_diag_value "${a_arg[best]}" "${a_words[best]}"
    elif [[ -z $cmdlist ]]; then
        # a program without commands or arguments: its options
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    fi
}
