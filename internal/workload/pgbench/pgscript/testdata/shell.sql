-- \setshell and \shell, when allowed
\set x random(1, 100)
\setshell sx echo :x
\setshell plus expr :x + 1
\shell test ::x = ::x
INSERT INTO log (client, k, v) VALUES (:client_id, 'sx', ':sx :plus');
