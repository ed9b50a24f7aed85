package tproch

import "strings"

// dist is a weighted list in dbgen's dists.dss order. lookup maps a draw
// j ∈ [1, total weight] (as j−1) to the index of the first entry whose
// cumulative weight is ≥ j, so a pick is one draw and one load.
type dist struct {
	words  [][]byte
	lookup []uint8
	// padded holds the words for the text pool's 16-byte stores (see
	// putWord): a word, a space, zeros. Only the grammar's lists use it,
	// and none of their words is longer than 15 bytes (TestPoolWordsFit);
	// a longer one is cut here.
	padded []poolWord
}

// poolWord is a word of at most 15 bytes followed by a space, in 16 bytes.
type poolWord struct {
	b [16]byte
	n uint8 // the word's length, without the space
}

type wentry struct {
	w    int
	text string
}

func newDist(entries []wentry) *dist {
	d := &dist{}
	for i, e := range entries {
		d.words = append(d.words, []byte(e.text))
		var w poolWord
		w.n = uint8(copy(w.b[:], e.text))
		if int(w.n) < len(w.b) {
			w.b[w.n] = ' '
		}
		d.padded = append(d.padded, w)
		for k := 0; k < e.w; k++ {
			d.lookup = append(d.lookup, uint8(i))
		}
	}
	return d
}

// uniform builds a dist of weight-1 entries.
func uniform(words ...string) *dist {
	e := make([]wentry, len(words))
	for i, w := range words {
		e[i] = wentry{1, w}
	}
	return newDist(e)
}

// weighted builds a dist from "word:weight" groups: each argument is a
// weight followed by the words having it, in file order.
func weighted(groups ...any) *dist {
	var e []wentry
	w := 1
	for _, g := range groups {
		switch v := g.(type) {
		case int:
			w = v
		case string:
			for _, s := range strings.Split(v, ",") {
				e = append(e, wentry{w, s})
			}
		}
	}
	return newDist(e)
}

// Named value lists [reference §2.5], in dists.dss order.
var (
	distSegments     = uniform("AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY")
	distPriorities   = uniform("1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW")
	distInstructions = uniform("DELIVER IN PERSON", "COLLECT COD", "TAKE BACK RETURN", "NONE")
	distModes        = uniform("REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP")
	distRFlag        = uniform("R", "A")
	distTypes        = uniform(cross([]string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"},
		[]string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"},
		[]string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"})...)
	distContainers = uniform(cross([]string{"SM", "LG", "MED", "JUMBO", "WRAP"},
		[]string{"CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"})...)
)

// cross enumerates the space-joined products of syllable lists, the first
// list varying slowest.
func cross(lists ...[]string) []string {
	out := []string{""}
	for _, l := range lists {
		var next []string
		for _, p := range out {
			for _, s := range l {
				if p == "" {
					next = append(next, s)
				} else {
					next = append(next, p+" "+s)
				}
			}
		}
		out = next
	}
	return out
}

// colors is the P_NAME word list (92, dists.dss order).
var colors = strings.Fields(`almond antique aquamarine azure beige bisque black blanched blue blush brown
burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger
drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki
lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint misty moccasin navajo
navy olive orange orchid pale papaya peach peru pink plum powder puff purple red rose rosy royal saddle
salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat
white yellow`)

// Nations: name and region key (N_NATIONKEY is the index).
var nationNames = [25]string{"ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA", "FRANCE",
	"GERMANY", "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO", "MOZAMBIQUE",
	"PERU", "CHINA", "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA", "UNITED KINGDOM", "UNITED STATES"}
var nationRegion = [25]int64{0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1}
var regionNames = [5]string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// Text grammar [reference §2.4], dists.dss order and weights.
var (
	distNouns = weighted(40, "packages,requests,accounts,deposits",
		20, "foxes,ideas,theodolites,pinto beans,instructions",
		10, "dependencies,excuses,platelets,asymptotes",
		5, "courts,dolphins",
		1, "multipliers,sauternes,warthogs,frets,dinos,attainments,somas,Tiresias,patterns,forges,braids,"+
			"frays,warhorses,dugouts,notornis,epitaphs,pearls,tithes,waters,orbits,gifts,sheaves,depths,"+
			"sentiments,decoys,realms,pains,grouches,escapades,hockey players")
	distVerbs = weighted(20, "sleep,wake,are,cajole,haggle",
		10, "nag,use,boost",
		5, "affix,detect,integrate",
		1, "maintain,nod,was,lose,sublate,solve,thrash,promise,engage,hinder,print,x-ray,breach,eat,grow,"+
			"impress,mold,poach,serve,run,dazzle,snooze,doze,unwind,kindle,play,hang,believe,doubt")
	distAdverbs = weighted(1, "sometimes,always,never",
		50, "furiously,slyly,carefully",
		40, "blithely",
		30, "quickly",
		20, "fluffily",
		1, "slowly,quietly,ruthlessly,thinly,closely,doggedly,daringly,bravely,stealthily,permanently,"+
			"enticingly,idly,busily,regularly,finally,ironically,evenly,boldly,silently")
	distPrepositions = weighted(50, "about,above,according to,across,after",
		40, "against,along",
		30, "alongside of,among",
		20, "around",
		10, "at",
		1, "atop,before,behind,beneath,beside,besides,between,beyond,by,despite,during,except,for,from,"+
			"in place of,inside,instead of,into,near,of,on,outside,over,past,since,through,throughout,to,"+
			"toward,under,until,up,upon,whithout,with,within")
	distAuxiliaries = weighted(1, "do,may,might,shall,will,would,can,could,should,ought to,must,will have to,"+
		"shall have to,could have to,should have to,must have to,need to,try to")
	distTerminators = weighted(50, ".", 1, ";,:,?,!,--")
	distAdjectives  = weighted(20, "special,pending,unusual,express",
		1, "furious,sly,careful,blithe,quick,fluffy,slow,quiet,ruthless,thin,close,dogged,daring,brave,"+
			"stealthy,permanent,enticing,idle,busy",
		50, "regular",
		40, "final,ironic",
		30, "even",
		20, "bold",
		10, "silent")
	// Sentence, noun-phrase and verb-phrase forms; the strings are the
	// dists.dss forms (N noun phrase / noun, V verb phrase / verb, P
	// prepositional phrase, T terminator, J adjective, D adverb, X auxiliary).
	distGrammar = newDist([]wentry{{3, "N V T"}, {3, "N V P T"}, {3, "N V N T"}, {1, "N P V N T"}, {1, "N P V P T"}})
	distNP      = newDist([]wentry{{10, "N"}, {20, "J N"}, {10, "J, J N"}, {50, "D J N"}})
	distVP      = newDist([]wentry{{30, "V"}, {1, "X V"}, {40, "V D"}, {1, "X V D"}})
)
