package shell

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
)

// Ask writes question to out and reads the answer, a line, from in (a
// terminal): yes only for "y" or "yes", in any case. Ctrl-C at the question
// (ctx ends) is ctx's error, after a new line on out.
func Ask(ctx context.Context, in io.Reader, out io.Writer, question string) (bool, error) {
	fmt.Fprint(out, question)
	answered := make(chan string, 1)
	go func() {
		answer, _ := bufio.NewReader(in).ReadString('\n')
		answered <- answer
	}()
	select {
	case answer := <-answered:
		a := strings.ToLower(strings.TrimSpace(answer))
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(out)
		return false, ctx.Err()
	}
}
