package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionShells are the shells completion writes a script for.
var completionShells = []string{"bash", "zsh"}

const completionSynopsis = `completion bash | zsh

Prints a completion script of the commands, their words and flags:
  bash:  source <(xs2a completion bash)   (in ~/.bashrc)
  zsh:   source <(xs2a completion zsh)    (in ~/.zshrc, after compinit),
         or save it as _xs2a in a directory of $fpath`

// compFlag is a flag as the completion scripts know it.
type compFlag struct {
	name, usage string
	isBool      bool
}

// compCommand is a command as the completion scripts know it.
type compCommand struct {
	name, summary string
	words         []string
	flags         []compFlag
}

// fileFlags take a file name: the scripts complete files after them.
var fileFlags = []string{"p12", "cert", "key"}

// completionSpec reads every command's flag set: it runs the command under
// env.describe, so the script is made from the flag sets the commands
// parse and cannot go stale. A command that does not hand its flag set to
// parse first is an error.
func completionSpec(ctx context.Context) ([]compCommand, error) {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	var spec []compCommand
	for _, c := range commands() {
		cc := compCommand{name: c.name, summary: c.summary, words: c.words}
		if c.name == "help" {
			cc.words = names
		}
		described := false
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
			describe: func(fs *flag.FlagSet) {
				described = true
				fs.VisitAll(func(f *flag.Flag) {
					b, ok := f.Value.(interface{ IsBoolFlag() bool })
					cc.flags = append(cc.flags, compFlag{f.Name, strings.Join(strings.Fields(f.Usage), " "), ok && b.IsBoolFlag()})
				})
			}}
		if err := c.run(ctx, e, c.words[:min(1, len(c.words))]); !described || !errors.Is(err, flag.ErrHelp) {
			return nil, fmt.Errorf("completion: the %s command did not describe its flags (%v)", c.name, err)
		}
		spec = append(spec, cc)
	}
	return spec, nil
}

// runCompletion prints the completion script of a shell.
func runCompletion(ctx context.Context, e *env, args []string) error {
	words, err := parseWords(e, newFlags("completion"), completionSynopsis, args)
	if err != nil {
		return err
	}
	if len(words) != 1 || !slices.Contains(completionShells, words[0]) {
		return usagef("completion: want bash or zsh (see xs2a completion -h)")
	}
	spec, err := completionSpec(ctx)
	if err != nil {
		return err
	}
	if words[0] == "bash" {
		_, err = io.WriteString(e.stdout, bashCompletion(spec))
	} else {
		_, err = io.WriteString(e.stdout, zshCompletion(spec))
	}
	return err
}

// bashCompletion is the bash script: the commands at the first word, a
// command's words at the second, its flags at a word that starts with "-",
// and file names otherwise (complete -o default).
func bashCompletion(spec []compCommand) string {
	var b strings.Builder
	b.WriteString("# bash completion for xs2a, made by 'xs2a completion bash' from the flag sets of its commands.\n")
	b.WriteString("# Use: source <(xs2a completion bash)\n")
	b.WriteString("_xs2a() {\n")
	b.WriteString("\tlocal cur=${COMP_WORDS[COMP_CWORD]} words='' flags=''\n")
	b.WriteString("\tCOMPREPLY=()\n")
	names := []string{"-h", "--help", "--version"}
	for _, c := range spec {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, "\tif [[ $COMP_CWORD -eq 1 ]]; then\n\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\treturn\n\tfi\n", shellQuote(strings.Join(names, " ")))
	b.WriteString("\tcase ${COMP_WORDS[1]} in\n")
	for _, c := range spec {
		var flags []string
		for _, f := range c.flags {
			flags = append(flags, "-"+f.name)
		}
		fmt.Fprintf(&b, "\t%s)\n\t\twords=%s\n\t\tflags=%s\n\t\t;;\n", shellQuote(c.name), shellQuote(strings.Join(c.words, " ")), shellQuote(strings.Join(flags, " ")))
	}
	b.WriteString("\tesac\n")
	b.WriteString("\tif [[ $COMP_CWORD -eq 2 && -n $words && $cur != -* ]]; then\n")
	b.WriteString("\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	b.WriteString("\telif [[ $cur == -* ]]; then\n")
	b.WriteString("\t\tCOMPREPLY=($(compgen -W \"$flags -h\" -- \"$cur\"))\n")
	b.WriteString("\tfi\n")
	b.WriteString("}\n")
	b.WriteString("complete -o default -F _xs2a xs2a\n")
	return b.String()
}

// zshCompletion is the zsh script: _describe for the commands, _arguments
// for each command's words and flags. Sourced, it registers itself with
// compdef; autoloaded from $fpath as _xs2a, it completes at once.
func zshCompletion(spec []compCommand) string {
	var b strings.Builder
	b.WriteString("#compdef xs2a\n")
	b.WriteString("# zsh completion for xs2a, made by 'xs2a completion zsh' from the flag sets of its commands.\n")
	b.WriteString("# Use: source <(xs2a completion zsh) after compinit, or save it as _xs2a in a directory of $fpath.\n")
	b.WriteString("_xs2a() {\n")
	b.WriteString("\tlocal curcontext=$curcontext state line\n")
	b.WriteString("\tlocal -a commands\n")
	b.WriteString("\tcommands=(\n")
	for _, c := range spec {
		fmt.Fprintf(&b, "\t\t%s\n", shellQuote(strings.ReplaceAll(c.name, ":", `\:`)+":"+c.summary))
	}
	b.WriteString("\t)\n")
	b.WriteString("\t_arguments -C '1: :->command' '*:: :->args'\n")
	b.WriteString("\tcase $state in\n")
	b.WriteString("\tcommand)\n\t\t_describe -t commands 'xs2a command' commands\n\t\t;;\n")
	b.WriteString("\targs)\n\t\tcase $line[1] in\n")
	for _, c := range spec {
		fmt.Fprintf(&b, "\t\t%s)\n\t\t\t_arguments", shellQuote(c.name))
		if len(c.words) > 0 {
			fmt.Fprintf(&b, " \\\n\t\t\t\t%s", shellQuote("1:word:("+strings.Join(c.words, " ")+")"))
		}
		for _, f := range c.flags {
			fmt.Fprintf(&b, " \\\n\t\t\t\t%s", shellQuote(zshFlagSpec(f)))
		}
		b.WriteString("\n\t\t\t;;\n")
	}
	b.WriteString("\t\tesac\n\t\t;;\n\tesac\n}\n")
	b.WriteString("if [[ $funcstack[1] == _xs2a ]]; then\n\t_xs2a \"$@\"\nelse\n\tcompdef _xs2a xs2a\nfi\n")
	return b.String()
}

// zshFlagSpec is an _arguments spec of f: "-name=[usage]:value:action"
// (the value after = or in the next word), or "-name[usage]" for a bool.
func zshFlagSpec(f compFlag) string {
	usage := strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(f.usage)
	if f.isBool {
		return "-" + f.name + "[" + usage + "]"
	}
	action := " "
	if slices.Contains(fileFlags, f.name) {
		action = "_files"
	}
	return "-" + f.name + "=[" + usage + "]:value:" + action
}

// shellQuote quotes s for bash and zsh: single quotes, a quote inside
// written as '\”.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
