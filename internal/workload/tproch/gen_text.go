package tproch

import "sync"

// The text pool [reference §2.4]: dbgen generates 300 MiB of sentences from
// its grammar once, with stream 5, and every "text string [min, max]" column
// copies a window of it. The pool does not depend on SF, so it is built once
// per process and shared read-only by every Generator and Source.

const textPoolSize = 300 * 1024 * 1024

var (
	textPoolOnce sync.Once
	textPoolData []byte
)

// textPool returns the shared pool, building it on first use (about a
// second).
func textPool() []byte {
	textPoolOnce.Do(func() { textPoolData = buildTextPool(textPoolSize) })
	return textPoolData
}

// buildTextPool generates the first size bytes of dbgen's pool: sentences
// separated by one space, the last one cut to fit.
func buildTextPool(size int) []byte {
	pool := poolMemory(size)
	var s stream
	s.init(sdTextPool, 0)
	sent := make([]byte, 0, 512)
	pos := 0
	for pos < size {
		sent = appendSentence(sent[:0], &s)
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

// appendSentence appends one sentence: its form, then its phrases in order,
// each word followed by a space; the terminator replaces the last space.
func appendSentence(b []byte, s *stream) []byte {
	form := distGrammar.words[s.pick(distGrammar)]
	for i := 0; i < len(form); i++ {
		switch form[i] {
		case 'N':
			b = appendNP(b, s)
		case 'V':
			b = appendVP(b, s)
		case 'P':
			b = append(b, distPrepositions.words[s.pick(distPrepositions)]...)
			b = append(b, " the "...)
			b = appendNP(b, s)
		case 'T':
			b = b[:len(b)-1]
			b = append(b, distTerminators.words[s.pick(distTerminators)]...)
		}
	}
	return b
}

func appendNP(b []byte, s *stream) []byte {
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

func appendVP(b []byte, s *stream) []byte {
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

// text is dbgen's dbg_text: a window of the pool with offset drawn in
// [0, pool − max] then length in [min, max], from the column's stream.
func text(pool []byte, s *stream, min, max int64) []byte {
	off := s.intn(0, int64(len(pool))-max)
	n := s.intn(min, max)
	return pool[off : off+n : off+n]
}

const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// appendVString is dbgen's a_rnd: a length in [min, max], then one draw per
// five characters, each character taking the next 6 bits.
func appendVString(b []byte, s *stream, min, max int64) []byte {
	n := s.intn(min, max)
	var ci int64
	for i := int64(0); i < n; i++ {
		if i%5 == 0 {
			ci = s.intn(0, maxL32)
		}
		b = append(b, alphaNum[ci&63])
		ci >>= 6
	}
	return b
}
