-- the last bits of the floating-point functions: each value minus its
-- first digits, so that the 15 printed digits of the rest are the double's
-- low-order bits
\set a random(1, 1000000000)
\set x :a / 1e8
\set l ln(:a)
\set lb (:l - int(:l * 1e6 - 0.5) / 1e6) * 1e6
\set e exp(:x)
\set eb :e / pow(10, int(ln(:e) / ln(10) - 0.5)) * 1e6
\set eb2 :eb - int(:eb - 0.5)
\set p pow(:a, 0.37)
\set pb (:p - int(:p * 1e6 - 0.5) / 1e6) * 1e6
\set s sqrt(:x)
\set sb (:s - int(:s * 1e6 - 0.5) / 1e6) * 1e6
\set d :a / 7.0
\set db (:d - int(:d * 1e3 - 0.5) / 1e3) * 1e3
INSERT INTO log (client, k, v) VALUES (:client_id, 'bits', ':a :lb :eb2 :pb :sb :db');
