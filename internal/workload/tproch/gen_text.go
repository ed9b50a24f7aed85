package tproch

import (
	"sync"
	"sync/atomic"
)

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
// separated by one space, the last one cut to fit. The sentences are written
// in place, word by word as fixed 16-byte stores (see poolWord), except near
// the end, where the stores could run past the pool: there a sentence is
// made in a scratch buffer and copied. A build waits for the pool before its
// first row, and appending the words one copy each took half of its time.
func buildTextPool(size int) []byte {
	pool := poolMemory(size)
	var s stream
	s.init(sdTextPool, 0)
	var written atomic.Int64 // pos, for prefaultPool, every 1 MiB
	wait := prefaultPool(pool, &written)
	defer wait()
	var scratch [maxSentence]byte
	pos, mark := 0, 0
	for pos < size {
		if pos >= mark {
			written.Store(int64(pos))
			mark = pos + 1<<20
		}
		if size-pos > maxSentence {
			n := writeSentence(pool[pos:pos+maxSentence], &s)
			pool[pos+n] = ' '
			pos += n + 1
			continue
		}
		n := writeSentence(scratch[:], &s)
		need := size - pos
		if need >= n+1 {
			pos += copy(pool[pos:], scratch[:n])
			pool[pos] = ' '
			pos++
		} else {
			pos += copy(pool[pos:], scratch[:need])
		}
	}
	return pool
}

// maxSentence bounds a sentence's bytes, with room for the last word's
// 16-byte store: the longest form, "N P V P T", has at most 14 words and a
// "the" of at most 16 bytes each.
const maxSentence = 512

// writeSentence writes one sentence at the start of b and returns its length:
// its form, then its phrases in order, each word followed by a space; the
// terminator replaces the last space.
func writeSentence(b []byte, s *stream) int {
	form := distGrammar.words[s.pick(distGrammar)]
	n := 0
	for i := 0; i < len(form); i++ {
		switch form[i] {
		case 'N':
			n = writeNP(b, n, s)
		case 'V':
			n = writeVP(b, n, s)
		case 'P':
			n = putWord(b, n, distPrepositions, s) + 1
			n += copy(b[n:], "the ")
			n = writeNP(b, n, s)
		case 'T':
			n = putWord(b, n-1, distTerminators, s)
		}
	}
	return n
}

// putWord stores a word of d drawn from s at b[n:], followed by a space
// (and padding, overwritten by what follows), and returns the offset just
// past the word: where the space is.
func putWord(b []byte, n int, d *dist, s *stream) int {
	w := &d.padded[s.pick(d)]
	*(*[16]byte)(b[n : n+16]) = w.b
	return n + int(w.n)
}

func writeNP(b []byte, n int, s *stream) int {
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
		n = putWord(b, n, d, s)
		if i+1 < len(form) && form[i+1] == ',' {
			b[n] = ','
			n++
			i++
		}
		b[n] = ' '
		n++
	}
	return n
}

func writeVP(b []byte, n int, s *stream) int {
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
		n = putWord(b, n, d, s) + 1
	}
	return n
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
