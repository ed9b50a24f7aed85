package tproch

import (
	"bytes"
	"testing"
)

// TestPoolWordsFit: every word of the text grammar's lists fits a poolWord
// with its space, as buildTextPool's stores assume.
func TestPoolWordsFit(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]*dist{
		"nouns": distNouns, "verbs": distVerbs, "adjectives": distAdjectives, "adverbs": distAdverbs,
		"auxiliaries": distAuxiliaries, "prepositions": distPrepositions, "terminators": distTerminators,
	} {
		if len(d.padded) != len(d.words) {
			t.Fatalf("%s: %d padded words for %d words", name, len(d.padded), len(d.words))
		}
		for i, w := range d.words {
			p := d.padded[i]
			if len(w) > 15 || !bytes.Equal(p.b[:p.n], w) || p.b[p.n] != ' ' {
				t.Errorf("%s: %q does not fit 15 bytes and a space (%q)", name, w, p.b[:])
			}
		}
	}
}

// TestTextPoolMatchesReference compares buildTextPool with the plain
// word-by-word append it replaced (dbgen's algorithm as written), over the
// first 64 MiB and at sizes that cut the last sentence anywhere, so that a
// faster pool stays the same pool.
func TestTextPoolMatchesReference(t *testing.T) {
	t.Parallel()
	sizes := []int{64 << 20}
	for n := 1; n < 700; n += 7 {
		sizes = append(sizes, n, 4096+n)
	}
	for _, size := range sizes {
		got, want := buildTextPool(size), referenceTextPool(size)
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("size %d: pools differ from byte %d: %q, want %q", size, i,
				got[i:min(i+40, len(got))], want[i:min(i+40, len(want))])
		}
	}
}

// referenceTextPool is the text pool built one append per word.
func referenceTextPool(size int) []byte {
	pool := make([]byte, size)
	var s stream
	s.init(sdTextPool, 0)
	sent := make([]byte, 0, 512)
	pos := 0
	for pos < size {
		sent = refSentence(sent[:0], &s)
		need := size - pos
		if need >= len(sent)+1 {
			pos += copy(pool[pos:], sent)
			pool[pos] = ' '
			pos++
		} else {
			pos += copy(pool[pos:], sent[:need])
		}
	}
	return pool
}

func refSentence(b []byte, s *stream) []byte {
	form := distGrammar.words[s.pick(distGrammar)]
	for i := 0; i < len(form); i++ {
		switch form[i] {
		case 'N':
			b = refNP(b, s)
		case 'V':
			b = refVP(b, s)
		case 'P':
			b = append(b, distPrepositions.words[s.pick(distPrepositions)]...)
			b = append(b, " the "...)
			b = refNP(b, s)
		case 'T':
			b = b[:len(b)-1]
			b = append(b, distTerminators.words[s.pick(distTerminators)]...)
		}
	}
	return b
}

func refNP(b []byte, s *stream) []byte {
	form := distNP.words[s.pick(distNP)]
	for i := 0; i < len(form); i++ {
		var d *dist
		switch form[i] {
		case 'N':
			d = distNouns
		case 'J':
			d = distAdjectives
		case 'D':
			d = distAdverbs
		default:
			continue
		}
		b = append(b, d.words[s.pick(d)]...)
		if i+1 < len(form) && form[i+1] == ',' {
			b = append(b, ',')
			i++
		}
		b = append(b, ' ')
	}
	return b
}

func refVP(b []byte, s *stream) []byte {
	form := distVP.words[s.pick(distVP)]
	for i := 0; i < len(form); i++ {
		var d *dist
		switch form[i] {
		case 'V':
			d = distVerbs
		case 'X':
			d = distAuxiliaries
		case 'D':
			d = distAdverbs
		default:
			continue
		}
		b = append(b, d.words[s.pick(d)]...)
		b = append(b, ' ')
	}
	return b
}
