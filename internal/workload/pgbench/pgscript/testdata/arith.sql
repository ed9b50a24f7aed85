-- operators and functions of the expression language on random inputs
\set a random(-1000, 1000)
\set b random(1, 50)
\set c random(-3, 3)
\set add :a + :b
\set sub :a - :b * 2
\set mul :a * :b
\set div :a / :b
\set mod :a % :b
\set modf mod(:a, -:b)
\set neg -:a
\set band :a & :b
\set bor :a | :b
\set bxor :a # :b
\set bnot ~:a
\set shl :b << 3
\set shr :a >> 2
\set prec 1 + 2 * 3 - 4 / 2 % 3 | 8 & 12 # 1 << 2
\set dbl :a / 7.0
\set dbl2 double(:a) * 1.5e-3
\set int1 int(:a / 7.0)
\set int2 int(2.5) * 100 + int(3.5) * 10 + int(-2.5)
\set abs1 abs(:a)
\set abs2 abs(:a * 1.25)
\set sq sqrt(:b)
\set ln1 ln(:b)
\set ex exp(:c)
\set pw pow(:b, 0.5)
\set pw2 power(2, :c)
\set pi1 pi() * :b
\set lst least(:a, :b, :c)
\set gst greatest(:a, :b * 1.0, :c)
\set h1 hash(:a)
\set h2 hash_murmur2(:a, 12345)
\set h3 hash_fnv1a(:a)
\set h4 hash_fnv1a(:b, -1)
\set cmp1 :a < :b
\set cmp2 :a >= :c and :b <> 3
\set cmp3 not (:a = :b) or :c != 0
\set cmp4 :a > :c AND :b <= 25 OR :c = 1
\set cs1 case when :c < 0 then -1 when :c = 0 then 0 else 1 end
\set cs2 CASE WHEN :c > 5 THEN 1 END
\set nul NULL
\set isn :nul is null
\set isn2 :a isnull
\set isn3 :a notnull
\set isn4 :nul is not null
\set ist (:c > 0) is true
\set isnt (:c > 0) is not false
\set nadd :nul + 1
\set nand true and :nul
\set nand2 false and :nul
\set nor :nul or true
\set dbg debug(:a * 2)
\set big 9223372036854775807
\set small -9223372036854775808
\set flt 1e3 + .5 + 1.
\set ddiv 1.0 / 3
\set dsmall 1.0 / 3e10
\set dbig 123456789.0 * 1e12
\set dneg -0.0
\set inf1 1.0 / 0
\set inf2 -1.0 / 0
\set nan1 sqrt(-1.0)
\set nan2 ln(-1.0)
\set dv2 :dv * 2
\set dt :dtext and true
\set dn :dnull is null
INSERT INTO log (client, k, v) VALUES
  (:client_id, 'in', ':a :b :c'), (:client_id, 'add', ':add'), (:client_id, 'sub', ':sub'),
  (:client_id, 'mul', ':mul'), (:client_id, 'div', ':div'), (:client_id, 'mod', ':mod'),
  (:client_id, 'modf', ':modf'), (:client_id, 'neg', ':neg'), (:client_id, 'bits', ':band :bor :bxor :bnot :shl :shr :prec'),
  (:client_id, 'dbl', ':dbl :dbl2'), (:client_id, 'int', ':int1 :int2'), (:client_id, 'abs', ':abs1 :abs2'),
  (:client_id, 'math', ':sq :ln1 :ex :pw :pw2 :pi1'), (:client_id, 'ext', ':lst :gst'),
  (:client_id, 'hash', ':h1 :h2 :h3 :h4'), (:client_id, 'cmp', ':cmp1 :cmp2 :cmp3 :cmp4'),
  (:client_id, 'case', ':cs1 :cs2'), (:client_id, 'null', ':nul :isn :isn2 :isn3 :isn4 :ist :isnt :nadd :nand :nand2 :nor'),
  (:client_id, 'const', ':dbg :big :small :flt'), (:client_id, 'dbls', ':ddiv :dsmall :dbig :dneg :inf1 :inf2 :nan1 :nan2'),
  (:client_id, 'defs', ':dv2 :dt :dn :dv :dtext'), (:client_id, 'undefined', ':nosuchvar::text');
\set f1 1e15
\set f2 1e14 + 0.5
\set f3 0.0001
\set f4 0.00001
\set f5 2.0 * 4503599627370496
\set f6 1.0 / 7 * 1e-300
\set f7 123456789012345.678
\set f8 -0.1 * 3
INSERT INTO log (client, k, v) VALUES (:client_id, 'fmt', ':f1 :f2 :f3 :f4 :f5 :f6 :f7 :f8');
