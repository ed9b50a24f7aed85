package shell

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/sledge-bench/sledge/internal/script"
)

// The interactive sledge> prompt. Go reads each line with a line editor
// (golang.org/x/term: arrows, Home/End, Ctrl-A/E/K/U/W, history, Tab to
// complete command names) and hands it to tclsh on fd 3; tclsh answers on
// fd 4 with "more" (the command is not complete yet) or "done" once it has
// evaluated it. While Tcl evaluates, the terminal is back in cooked mode, so
// a command's output and Ctrl-C behave as in any shell.
//
// Ctrl-C must stop the job a command is running, not the session: tclsh is
// started with SIGINT ignored (Tcl has no handler of its own), and the
// `sledge cli do` processes it starts install Go's handler again, so the
// job stops as interrupted and the prompt comes back.

// prompt runs tclsh on the prelude in "edited" mode behind the line
// editor. p.Stdin must be a terminal.
func prompt(ctx context.Context, p Process, tclsh, prelude string) error {
	file, ok := p.Stdin.(interface{ Fd() uintptr })
	if !ok {
		return errors.New("the sledge> prompt needs a terminal on stdin")
	}
	fd := int(file.Fd())
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		return err
	}
	ignoreInterrupt()
	cmd := exec.CommandContext(ctx, tclsh, prelude, "edited")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	cmd.Env = p.Env
	cmd.Dir = p.WorkDir
	cmd.ExtraFiles = []*os.File{cmdR, ackW} // fd 3 and fd 4 in tclsh
	// tclsh dies with this process; this goroutine, on its thread, waits
	// for it.
	dieWithParent(cmd)
	defer lockThread()()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start tclsh: %w", err)
	}
	cmdR.Close()
	ackW.Close()
	acks := bufio.NewScanner(ackR)

	hist := openHistory(p.History)
	in := &interruptReader{r: p.Stdin}
	complete := completer(tclCommands(script.TclPrelude))
	newTerm := func() *term.Terminal {
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{in, p.Stdout}, "sledge> ")
		t.History = hist
		t.AutoCompleteCallback = complete
		return t
	}
	t := newTerm()

	// Wait for the banner: tclsh says "done" when it is ready.
	if !acks.Scan() {
		return cmd.Wait()
	}
	for {
		if w, h, err := term.GetSize(fd); err == nil {
			t.SetSize(w, h)
		}
		state, err := term.MakeRaw(fd)
		if err != nil {
			cmdW.Close()
			cmd.Wait()
			return fmt.Errorf("terminal: %w", err)
		}
		in.interrupted = false
		line, err := t.ReadLine()
		term.Restore(fd, state)
		if errors.Is(err, term.ErrPasteIndicator) {
			err = nil // a pasted line is still a line
		}
		if err != nil {
			if in.interrupted {
				// Ctrl-C drops the line being typed (and any unfinished command).
				// x/term keeps the half-typed line: start a fresh editor.
				fmt.Fprintln(p.Stdout, "^C")
				line = "\x03"
				t = newTerm()
			} else {
				fmt.Fprintln(p.Stdout)
				cmdW.Close() // Ctrl-D: tclsh sees the end of input and exits
				break
			}
		}
		if _, err := io.WriteString(cmdW, line+"\n"); err != nil {
			break // tclsh has gone (quit)
		}
		if !acks.Scan() {
			break // quit or exit in Tcl
		}
		if acks.Text() == "more" {
			t.SetPrompt("> ")
		} else {
			t.SetPrompt("sledge> ")
		}
	}
	cmdW.Close()
	hist.save()
	return cmd.Wait()
}

// ignoreInterrupt makes this process and the tclsh it starts ignore SIGINT;
// processes that handle it (sledge cli do) install their handler again.
func ignoreInterrupt() { signal.Ignore(os.Interrupt) }

// interruptReader notes a Ctrl-C among the bytes read, because x/term reports
// Ctrl-C and Ctrl-D on an empty line alike (io.EOF).
type interruptReader struct {
	r           io.Reader
	interrupted bool
}

func (r *interruptReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if bytes.IndexByte(p[:n], 3) >= 0 {
		r.interrupted = true
	}
	return n, err
}

// tclCommands lists the commands the prelude defines at top level.
func tclCommands(prelude string) []string {
	procName := regexp.MustCompile(`(?m)^proc ([a-z][A-Za-z]*) `)
	var names []string
	for _, m := range procName.FindAllStringSubmatch(prelude, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	return names
}

// completer completes the first word of a line on Tab: fully when one
// command matches, to the longest shared prefix when several do.
func completer(commands []string) func(string, int, rune) (string, int, bool) {
	return func(line string, pos int, key rune) (string, int, bool) {
		if key != '\t' {
			return "", 0, false
		}
		word := line[:pos]
		if strings.ContainsAny(word, " \t;[") {
			return "", 0, false
		}
		var matches []string
		for _, c := range commands {
			if strings.HasPrefix(c, word) {
				matches = append(matches, c)
			}
		}
		if len(matches) == 0 {
			return "", 0, false
		}
		common := matches[0]
		for _, m := range matches[1:] {
			for !strings.HasPrefix(m, common) {
				common = common[:len(common)-1]
			}
		}
		if len(matches) == 1 {
			common += " "
		}
		return common + line[pos:], len(common), true
	}
}

// history is the prompt's history, kept between sessions in a file
// (Process.History, HistoryFile), newest last.
type history struct {
	path  string
	lines []string
	added []string
}

const historyMax = 1000

// HistoryFile is where the prompt keeps its history between sessions:
// $XDG_STATE_HOME/sledge/cli_history (xdgStateHome), by default under the
// user's home, ~/.local/state; "" (none) without either.
func HistoryFile(xdgStateHome, home string) string {
	switch {
	case xdgStateHome != "":
		return filepath.Join(xdgStateHome, "sledge", "cli_history")
	case home != "":
		return filepath.Join(home, ".local", "state", "sledge", "cli_history")
	}
	return ""
}

func openHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	if b, err := os.ReadFile(h.path); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				h.lines = append(h.lines, l)
			}
		}
	}
	return h
}

// Add, Len and At make history a term.History; At(0) is the newest line.
func (h *history) Add(line string) {
	if strings.TrimSpace(line) == "" || (len(h.lines) > 0 && h.lines[len(h.lines)-1] == line) {
		return
	}
	h.lines = append(h.lines, line)
	h.added = append(h.added, line)
}

func (h *history) Len() int { return len(h.lines) }

func (h *history) At(i int) string { return h.lines[len(h.lines)-1-i] }

// save appends this session's lines and trims the file to historyMax lines.
// History is a convenience: failing to save it is not an error.
func (h *history) save() {
	if h.path == "" || len(h.added) == 0 {
		return
	}
	keep := h.lines
	if len(keep) > historyMax {
		keep = keep[len(keep)-historyMax:]
	}
	if os.MkdirAll(filepath.Dir(h.path), 0o700) != nil {
		return
	}
	_ = os.WriteFile(h.path, []byte(strings.Join(keep, "\n")+"\n"), 0o600)
}
