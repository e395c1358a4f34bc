# zsh -f zsh_complete.zsh SCRIPT OUT LINE — the candidates zsh's completion
# offers for LINE (typed at a prompt, then Tab) are written to OUT, one a
# line. Completion functions run only inside the line editor, so this runs
# an interactive zsh in a pseudo-terminal (zsh/zpty) and types into it;
# compadd is wrapped to record what the completion adds.
zmodload zsh/zpty
script=$1 out=$2 line=$3
: >$out
zpty z zsh -f -i
zpty -w z "autoload -Uz compinit; compinit -u -d ${(q)out}.dump; . ${(q)script}"
zpty -w z "compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd \"\$@\"; return; fi
  local -a hits; builtin compadd -A hits \"\$@\"; local r=\$?
  print -rl -- \$hits >>${(q)out}; builtin compadd \"\$@\"; return r
}"
wait_for() { # wait_for WHAT — until OUT's last line is <WHAT>
  local i; for i in {1..100}; do
    [[ $(tail -n 1 $out 2>/dev/null) == "<$1>" ]] && return 0; sleep 0.1
  done
  print -u2 "zsh_complete.zsh: zsh did not get to <$1> for '$line'"; exit 1
}
zpty -w z "print -r -- '<ready>' >>${(q)out}"
wait_for ready
: >$out
zpty -w -n z "$line"$'\t'
zpty -w z $'\C-e\C-u'"print -r -- '<done>' >>${(q)out}"
wait_for done
zpty -d z
sed -i '$d' $out
