package tproch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
)

// TestOutputHashes pins the generator's output byte for byte: the SHA-256 of
// every SF 0.01 table and of RF1 set 1, in COPY text and in .tbl form, as the
// generator wrote them when the SF 1 answer sets were validated, and in the
// binary COPY form a PostgreSQL build sends. A faster generator or encoder
// must produce the same bytes.
func TestOutputHashes(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	type source struct {
		name string
		src  func() (*Source, error)
	}
	var sources []source
	for _, tb := range Tables() {
		sources = append(sources, source{tb.String(), func() (*Source, error) { return g.Source(tb, 0, 1) }})
	}
	for _, tb := range []Table{TableOrders, TableLineitem} {
		sources = append(sources, source{tb.String() + ".u1", func() (*Source, error) { return g.RefreshSource(tb, 1) }})
	}
	for _, s := range sources {
		for _, f := range []struct {
			name   string
			format Format
		}{{"copy", FormatCopy}, {"tbl", FormatPipe}, {"binary", -1}} {
			t.Run(s.name+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				src, err := s.src()
				if err != nil {
					t.Fatal(err)
				}
				h := sha256.New()
				r := NewReader(context.Background(), src, f.format)
				if f.name == "binary" {
					r = newBinaryReader(context.Background(), src, nil)
				}
				if _, err := io.Copy(h, r); err != nil {
					t.Fatal(err)
				}
				got := hex.EncodeToString(h.Sum(nil))
				if w := outputHashes[s.name+"/"+f.name]; got != w {
					t.Errorf("SHA-256 %s, want %s", got, w)
				}
			})
		}
	}
}

var outputHashes = map[string]string{
	"customer/binary":    "1e6795593d1ec26fb363f37368781c1e95856a26f807c99364822c445061d970",
	"lineitem.u1/binary": "2aa8d77f3dbed8cfb94c2743f40e65bd82701fee8ef617c117ac6015675a4781",
	"lineitem/binary":    "bcb6eaee3ab410b80eb51f68de3029489d11b6d84884edc9643f7b088066f50e",
	"nation/binary":      "290d2f2426d36316245b82eee69ecbddc0e4b345a3883a68d2324b29be6fa8f8",
	"orders.u1/binary":   "c93db309868119f60c68e6f4838c48d0a1a0a9ee460adf07ec06b6b1e6a7a9ea",
	"orders/binary":      "a14f864adf67633792d2bf8edfbc08fd76dbabf16677eca8edc05c539c7ea83f",
	"part/binary":        "4d9ed9bcf076f1b61908d555af47666aa46c3aaa7359d836cb79cdb90f2532d3",
	"partsupp/binary":    "24e34754c5edef43c3a944bdabab369b198ef4cb53ed7b623846d3e8d1b9222d",
	"region/binary":      "93d8b785b5f71a1856e58b8637bdb51fdfa34ee108e81a4efa6bbdd0f7675cc6",
	"supplier/binary":    "1d5d7d2be9f27f37b2519c8e1c4a7a892e220557f09b3b5e706b5e5519685ce2",
	"customer/copy":      "1324e68976f6e785bb76c67319be79def4d084a04570df582ff742640249c2f5",
	"customer/tbl":       "6b690cce995cb715861ebf2c77aa02c61406e3a0ddcd3326d1ecfa969b9163f8",
	"lineitem.u1/copy":   "cb9b21f2728b9b89cd32fc1e4579060b4e84eaada3e98886c5b7b3a493d56837",
	"lineitem.u1/tbl":    "d7060731ff5c59ac2870e35f55cfde7f8192f3390c26a78fc407212f666a8924",
	"lineitem/copy":      "2ec2ad33a8d4b913e42a58254298d8a7c0ca6829f2c16148f3903950dc6a1a77",
	"lineitem/tbl":       "7f53688873d230ee8a31c825401c721c5cfdb88b960a273f7cc9485485d62239",
	"nation/copy":        "02184578b98209bdf8b4da4f36b4096de487e8bae96562e3de521f27e923753a",
	"nation/tbl":         "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5",
	"orders.u1/copy":     "f5fb873c84e029e7e5518ea7faa7f985bac796d1370ec0cd08535f8c89a84ddc",
	"orders.u1/tbl":      "eb9134d683b291367d5fb16fb8abb8a363ed77366a6813658aeab9a8920219dd",
	"orders/copy":        "dc23eb63919a1f232110df0cdafcda2ea6b316745398e6ef66a2ce6a8c46e2eb",
	"orders/tbl":         "07cc8b362fda6d0b503c4d6c5d228817548e0688a3b21b590c52bb47b7b79c0f",
	"part/copy":          "6fc8270764fc7a081ab07baf78109665b113cb1aa745c88a86d73612aa02f97d",
	"part/tbl":           "896e14465325110dd9cf05a16972028a58be0010959262176ecd97f4db1702f8",
	"partsupp/copy":      "bc112617d6c67fc43d39c930f4469c9af27a13306d76c7f6eccea496a85b7c2c",
	"partsupp/tbl":       "5947b5ebab042b49148f82c1324ad122f7e0d98cfadcbef12da0a5e239e09e79",
	"region/copy":        "e0855c3d9ad6bf7e9ad59648418e291f79350d75c43a6a94a02b973cad211bdd",
	"region/tbl":         "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f",
	"supplier/copy":      "ac2d21b49f4c8f7507cd896f35156f1f49a8521e86f804c62f8467b6b24510aa",
	"supplier/tbl":       "9dc1002ee774699a092ed83ba278caf466d62a15d7e35bb6ed9293475528734b",
}

// TestGeneratedTextIsPlain proves what NewReader relies on to skip the
// search for bytes to escape: every source of a Source's text (the word
// lists, the text pool built from them, the alphabets, the fixed names and
// prefixes) is free of the bytes COPY text escapes. Digits, '#', '-', '.'
// and spaces are all the generator adds to them.
func TestGeneratedTextIsPlain(t *testing.T) {
	t.Parallel()
	lists := map[string][][]byte{
		"alphabet": {[]byte(alphaNum)},
		"prefixes": {[]byte("Supplier#Customer#Clerk#Manufacturer#Brand#Customer ComplaintsRecommends")},
		"pool":     {textPool()},
	}
	for name, d := range map[string]*dist{
		"segments": distSegments, "priorities": distPriorities, "instructions": distInstructions,
		"modes": distModes, "rflag": distRFlag, "types": distTypes, "containers": distContainers,
		"grammar": distGrammar, "np": distNP, "vp": distVP, "nouns": distNouns, "verbs": distVerbs,
		"adjectives": distAdjectives, "adverbs": distAdverbs, "auxiliaries": distAuxiliaries,
		"prepositions": distPrepositions, "terminators": distTerminators,
	} {
		lists[name] = d.words
	}
	for _, l := range [][]string{colors, nationNames[:], regionNames[:]} {
		for _, w := range l {
			lists["names"] = append(lists["names"], []byte(w))
		}
	}
	for name, words := range lists {
		for _, w := range words {
			if needsEscape(w) {
				t.Errorf("%s: %q holds a byte COPY text escapes", name, w[:min(len(w), 80)])
			}
		}
	}
	// And the check can fail.
	if !needsEscape([]byte("a\tb")) || !needsEscape([]byte(`a\b`)) {
		t.Error("needsEscape misses a tab or a backslash")
	}
}
