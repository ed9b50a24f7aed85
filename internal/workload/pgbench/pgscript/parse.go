package pgscript

import (
	"fmt"
	"strconv"
	"strings"
)

// CommandKind tells what a script command does.
type CommandKind uint8

const (
	SQL CommandKind = iota + 1
	MetaSet
	MetaSleep
	MetaSetShell
	MetaShell
	MetaIf
	MetaElif
	MetaElse
	MetaEndif
	MetaStartPipeline
	MetaSyncPipeline
	MetaEndPipeline
)

var metaNames = map[string]CommandKind{
	"set": MetaSet, "sleep": MetaSleep, "setshell": MetaSetShell, "shell": MetaShell,
	"if": MetaIf, "elif": MetaElif, "else": MetaElse, "endif": MetaEndif,
	"startpipeline": MetaStartPipeline, "syncpipeline": MetaSyncPipeline,
	"endpipeline": MetaEndPipeline,
}

// ResultSet says what an SQL command stores of its results.
type ResultSet uint8

const (
	// StoreNone discards the results.
	StoreNone ResultSet = iota
	// StoreLast is \gset: the last result must have exactly one row, whose
	// columns become variables.
	StoreLast
	// StoreAll is \aset: the last row of every result that has rows.
	StoreAll
)

// Command is one command of a script: an SQL command or a meta-command.
type Command struct {
	Kind CommandKind
	// Line is the 1-based line of the script the command starts on.
	Line int
	// Text is the command as written (SQL text, or the meta-command's
	// line), for reports.
	Text string

	// SQL commands: the text as written, which simple mode substitutes
	// :variables into; the same with $1..$n in their place and the
	// variables in order, for the extended and prepared modes; what the
	// command stores of its results, into variables named Prefix+column.
	SQL       string
	ParamSQL  string
	ParamVars []string
	Store     ResultSet
	Prefix    string

	// \set, \if, \elif: the target variable (\set) and the expression.
	Var  string
	Expr *Expr
	// \sleep, \shell, \setshell: the words after the command (for
	// \setshell the first is the variable).
	Args []string

	// \if, \elif, \else: the index of the next \elif, \else or \endif of
	// the same \if. \elif, \else: the index of its \endif.
	next, endif int
}

// Script is a parsed pgbench script.
type Script struct {
	Name     string
	Commands []Command
}

// maxParams is the number of parameters pgbench allows per statement in
// the extended and prepared modes.
const maxParams = 255

// ParseError is an error in a script, with its place.
type ParseError struct {
	Name string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// Parse parses a script in pgbench's format: SQL commands ended by
// semicolons (\; continues a compound command), and meta-commands, which
// start with a backslash and end at the end of the line (a backslash at the
// end of a line continues it). name is used in errors.
func Parse(name, src string) (*Script, error) {
	p := &scriptParser{name: name, src: src, line: 1, s: Script{Name: name}}
	if err := p.run(); err != nil {
		return nil, err
	}
	if len(p.s.Commands) == 0 {
		return nil, &ParseError{name, 1, "empty command list for script"}
	}
	if err := p.s.link(name); err != nil {
		return nil, err
	}
	return &p.s, nil
}

type scriptParser struct {
	name string
	src  string
	i    int
	line int
	s    Script
}

func (p *scriptParser) errf(line int, format string, args ...any) error {
	return &ParseError{p.name, line, fmt.Sprintf(format, args...)}
}

func isIdentByte(c byte) bool { return isAlnum(c) || c == '$' }

// run splits the source into commands, lexing SQL enough to find the
// semicolons and backslashes that are not quoted or commented.
func (p *scriptParser) run() error {
	src := p.src
	var sql strings.Builder
	start := 0 // line where the current SQL began
	started := false
	depth := 0
	flush := func() {
		text := trimSQL(sql.String())
		sql.Reset()
		depth, started = 0, false
		if text != "" {
			p.s.Commands = append(p.s.Commands, Command{Kind: SQL, Line: start, Text: text, SQL: text})
		}
	}
	for p.i < len(src) {
		c := src[p.i]
		if !started && !strings.ContainsRune(" \t\n\r\f\v", rune(c)) && !strings.HasPrefix(src[p.i:], "--") {
			started, start = true, p.line
		}
		switch {
		case c == '\n':
			p.line++
			sql.WriteByte(c)
			p.i++
		case c == '-' && strings.HasPrefix(src[p.i:], "--"):
			j := strings.IndexByte(src[p.i:], '\n')
			if j < 0 {
				j = len(src) - p.i
			}
			sql.WriteString(src[p.i : p.i+j])
			p.i += j
		case c == '/' && strings.HasPrefix(src[p.i:], "/*"):
			j, err := p.blockComment()
			if err != nil {
				return err
			}
			sql.WriteString(src[p.i:j])
			p.i = j
		case c == '\'' || c == '"':
			escapes := c == '\'' && p.i > 0 && (src[p.i-1] == 'e' || src[p.i-1] == 'E') &&
				(p.i < 2 || !isIdentByte(src[p.i-2]))
			j, err := p.quoted(c, escapes)
			if err != nil {
				return err
			}
			sql.WriteString(src[p.i:j])
			p.i = j
		case c == '$' && (p.i == 0 || !isIdentByte(src[p.i-1])):
			j, err := p.dollarQuoted()
			if err != nil {
				return err
			}
			sql.WriteString(src[p.i:j])
			p.i = j
		case c == '(':
			depth++
			sql.WriteByte(c)
			p.i++
		case c == ')':
			if depth > 0 {
				depth--
			}
			sql.WriteByte(c)
			p.i++
		case c == ';' && depth == 0:
			sql.WriteByte(c)
			p.i++
			flush()
		case c == '\\' && p.i+1 < len(src) && (src[p.i+1] == ';' || src[p.i+1] == ':'):
			// \; and \: put the character in the command without their
			// usual meaning (end of command, psql variable)
			sql.WriteByte(src[p.i+1])
			p.i += 2
		case c == '\\':
			flush()
			if err := p.meta(); err != nil {
				return err
			}
		default:
			sql.WriteByte(c)
			p.i++
		}
	}
	flush()
	return nil
}

// trimSQL drops leading white space and -- comments; nothing left means no
// command.
func trimSQL(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\n\r\f\v")
		if !strings.HasPrefix(s, "--") {
			break
		}
		j := strings.IndexByte(s, '\n')
		if j < 0 {
			return ""
		}
		s = s[j:]
	}
	return strings.TrimRight(s, " \t\n\r\f\v")
}

func (p *scriptParser) countLines(from, to int) {
	p.line += strings.Count(p.src[from:to], "\n")
}

func (p *scriptParser) blockComment() (int, error) {
	src, depth, j := p.src, 0, p.i
	for j < len(src) {
		switch {
		case strings.HasPrefix(src[j:], "/*"):
			depth++
			j += 2
		case strings.HasPrefix(src[j:], "*/"):
			depth--
			j += 2
			if depth == 0 {
				p.countLines(p.i, j)
				return j, nil
			}
		default:
			j++
		}
	}
	return 0, p.errf(p.line, "unterminated /* comment")
}

func (p *scriptParser) quoted(q byte, escapes bool) (int, error) {
	src, j := p.src, p.i+1
	for j < len(src) {
		switch {
		case escapes && src[j] == '\\':
			j += 2
		case src[j] == q && j+1 < len(src) && src[j+1] == q:
			j += 2
		case src[j] == q:
			p.countLines(p.i, j+1)
			return j + 1, nil
		default:
			j++
		}
	}
	what := "quoted string"
	if q == '"' {
		what = "quoted identifier"
	}
	return 0, p.errf(p.line, "unterminated %s", what)
}

// dollarQuoted skips $tag$...$tag$; a $ that starts no tag (a parameter
// such as $1) is a plain character.
func (p *scriptParser) dollarQuoted() (int, error) {
	src, j := p.src, p.i+1
	if j < len(src) && isAlpha(src[j]) {
		for j < len(src) && isAlnum(src[j]) {
			j++
		}
	}
	if j >= len(src) || src[j] != '$' {
		return p.i + 1, nil
	}
	tag := src[p.i : j+1]
	end := strings.Index(src[j+1:], tag)
	if end < 0 {
		return 0, p.errf(p.line, "unterminated dollar-quoted string")
	}
	k := j + 1 + end + len(tag)
	p.countLines(p.i, k)
	return k, nil
}

// metaLine returns the rest of the meta-command's line (from after the
// backslash), joining continued lines, and moves past it.
func (p *scriptParser) metaLine() string {
	var b strings.Builder
	src := p.src
	for p.i < len(src) {
		c := src[p.i]
		if c == '\\' && p.i+1 < len(src) && src[p.i+1] == '\n' {
			p.i += 2
			p.line++
			b.WriteByte(' ')
			continue
		}
		if c == '\\' && strings.HasPrefix(src[p.i+1:], "\r\n") {
			p.i += 3
			p.line++
			b.WriteByte(' ')
			continue
		}
		if c == '\n' {
			p.i++
			p.line++
			break
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String()
}

func (p *scriptParser) meta() error {
	line := p.line
	p.i++ // the backslash
	text := p.metaLine()
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return p.errf(line, "invalid command \"\\\"")
	}
	word := fields[0]
	args := fields[1:]
	lw := strings.ToLower(word)
	full := "\\" + strings.TrimSpace(text)
	switch lw {
	case "gset", "aset":
		if len(args) > 1 {
			return p.errf(line, "\\%s: too many arguments", lw)
		}
		n := len(p.s.Commands)
		if n == 0 || p.s.Commands[n-1].Kind != SQL || p.s.Commands[n-1].Store != StoreNone {
			return p.errf(line, "\\%s must follow an SQL command", lw)
		}
		c := &p.s.Commands[n-1]
		c.Store = StoreLast
		if lw == "aset" {
			c.Store = StoreAll
		}
		if len(args) == 1 {
			c.Prefix = args[0]
		}
		return nil
	}
	kind, ok := metaNames[lw]
	if !ok {
		return p.errf(line, "invalid command \"\\%s\"", word)
	}
	c := Command{Kind: kind, Line: line, Text: full}
	switch kind {
	case MetaSet:
		if len(args) == 0 {
			return p.errf(line, "\\set: missing variable name")
		}
		c.Var = args[0]
		if !ValidName(c.Var) {
			return p.errf(line, "\\set: invalid variable name %q", c.Var)
		}
		rest := after(after(text, word), c.Var)
		if rest == "" {
			return p.errf(line, "\\set %s: missing expression", c.Var)
		}
		e, err := ParseExpr(rest)
		if err != nil {
			return p.errf(line, "\\set %s: %v in %q", c.Var, err, rest)
		}
		c.Expr = e
	case MetaIf, MetaElif:
		rest := after(text, word)
		if rest == "" {
			return p.errf(line, "\\%s: missing expression", lw)
		}
		e, err := ParseExpr(rest)
		if err != nil {
			return p.errf(line, "\\%s: %v in %q", lw, err, rest)
		}
		c.Expr = e
	case MetaElse, MetaEndif, MetaStartPipeline, MetaSyncPipeline, MetaEndPipeline:
		if len(args) > 0 {
			return p.errf(line, "\\%s: unexpected argument %q", lw, args[0])
		}
	case MetaSleep:
		if len(args) == 0 {
			return p.errf(line, "\\sleep: missing argument")
		}
		if len(args) > 2 {
			return p.errf(line, "\\sleep: too many arguments")
		}
		if !strings.HasPrefix(args[0], ":") {
			num, unit := splitNumber(args[0])
			if unit != "" {
				if len(args) != 1 || num == "" {
					return p.errf(line, "\\sleep: invalid sleep time %q, must be an integer", args[0])
				}
				args = []string{num, unit}
			}
		}
		if len(args) == 2 {
			switch strings.ToLower(args[1]) {
			case "us", "ms", "s":
			default:
				return p.errf(line, "\\sleep: unrecognized time unit %q, must be us, ms or s", args[1])
			}
		}
		c.Args = args
	case MetaSetShell:
		if len(args) < 2 {
			return p.errf(line, "\\setshell: missing argument")
		}
		if !ValidName(args[0]) {
			return p.errf(line, "\\setshell: invalid variable name %q", args[0])
		}
		c.Args = args
	case MetaShell:
		if len(args) == 0 {
			return p.errf(line, "\\shell: missing command")
		}
		c.Args = args
	}
	p.s.Commands = append(p.s.Commands, c)
	return nil
}

// after returns what follows the first occurrence of word in text, trimmed.
func after(text, word string) string {
	return strings.TrimSpace(text[strings.Index(text, word)+len(word):])
}

// splitNumber splits "10ms" into its signed digits and the rest.
func splitNumber(s string) (num, rest string) {
	j := 0
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k == j {
		return "", s
	}
	return s[:k], s[k:]
}

// link checks the \if structure, computes its jumps, and derives the
// parameterized form of the SQL commands.
func (s *Script) link(name string) error {
	type open struct {
		at       int // the \if
		last     int // the latest branch (\if, \elif or \else)
		sawElse  bool
		branches []int
	}
	var stack []*open
	for i := range s.Commands {
		c := &s.Commands[i]
		switch c.Kind {
		case SQL:
			c.ParamSQL, c.ParamVars = parameterize(c.SQL)
		case MetaIf:
			stack = append(stack, &open{at: i, last: i, branches: []int{i}})
		case MetaElif, MetaElse, MetaEndif:
			if len(stack) == 0 {
				return &ParseError{name, c.Line, fmt.Sprintf("%s without matching \\if", c.Text)}
			}
			o := stack[len(stack)-1]
			if o.sawElse && c.Kind != MetaEndif {
				return &ParseError{name, c.Line, fmt.Sprintf("%s after \\else", strings.Fields(c.Text)[0])}
			}
			s.Commands[o.last].next = i
			o.last = i
			if c.Kind == MetaElse {
				o.sawElse = true
			}
			if c.Kind != MetaEndif {
				o.branches = append(o.branches, i)
				continue
			}
			for _, b := range o.branches {
				s.Commands[b].endif = i
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return &ParseError{name, s.Commands[stack[len(stack)-1].at].Line, "\\if without matching \\endif"}
	}
	return nil
}

// variableAt returns the name of the variable referenced at sql[i] (a
// colon) and the length of the reference, or "" if what follows the colon
// cannot start a name.
func variableAt(sql string, i int) (string, int) {
	j := i + 1
	if j >= len(sql) || !isAlpha(sql[j]) {
		return "", 0
	}
	for j < len(sql) && isAlnum(sql[j]) {
		j++
	}
	return sql[i+1 : j], j - i
}

// parameterize replaces each :name with $1, $2, ... in order, as pgbench's
// extended and prepared modes do, quotes notwithstanding.
func parameterize(sql string) (string, []string) {
	if strings.IndexByte(sql, ':') < 0 {
		return sql, nil
	}
	var b strings.Builder
	var vars []string
	i := 0
	for i < len(sql) {
		if sql[i] != ':' {
			b.WriteByte(sql[i])
			i++
			continue
		}
		name, n := variableAt(sql, i)
		if n == 0 {
			for i < len(sql) && sql[i] == ':' {
				b.WriteByte(':')
				i++
			}
			continue
		}
		vars = append(vars, name)
		b.WriteString("$" + strconv.Itoa(len(vars)))
		i += n
	}
	return b.String(), vars
}

// Substitute replaces each :name whose variable is defined with its text,
// as pgbench's simple mode does; other colons stay.
func Substitute(sql string, vars *Vars) string {
	i := strings.IndexByte(sql, ':')
	if i < 0 {
		return sql
	}
	var b strings.Builder
	b.Grow(len(sql) + 32)
	for i >= 0 {
		b.WriteString(sql[:i])
		sql = sql[i:]
		name, n := variableAt(sql, 0)
		switch {
		case n == 0:
			k := 0
			for k < len(sql) && sql[k] == ':' {
				k++
			}
			b.WriteString(sql[:k])
			sql = sql[k:]
		default:
			if text, ok := vars.Text(name); ok {
				b.WriteString(text)
				sql = sql[n:]
			} else {
				b.WriteByte(':')
				sql = sql[1:]
			}
		}
		i = strings.IndexByte(sql, ':')
	}
	b.WriteString(sql)
	return b.String()
}
