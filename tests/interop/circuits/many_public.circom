pragma circom 2.0.0;

// Many public inputs: a weighted sum of 40 public values with a private key,
// plus a private square chain so that the circuit is not trivially small.
template ManyPublic(n, rounds) {
    signal input x[n];
    signal input k;
    signal output sum;
    signal output chain;

    signal t[n];
    var acc = 0;
    for (var i = 0; i < n; i++) {
        t[i] <== x[i] * k;
        acc += t[i] * (i + 1);
    }
    sum <== acc;

    signal c[rounds + 1];
    c[0] <== k;
    for (var i = 0; i < rounds; i++) {
        c[i + 1] <== c[i] * c[i] + x[i % n];
    }
    chain <== c[rounds];
}

component main {public [x]} = ManyPublic(40, 200);
