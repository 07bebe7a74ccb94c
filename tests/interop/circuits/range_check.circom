pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Bit decompositions and comparators: every private value must lie in
// [lo, hi), and the circuit outputs how many of them are even.
template RangeCheck(n, bits) {
    signal input lo;
    signal input hi;
    signal input v[n];
    signal output evens;

    component ge[n];
    component lt[n];
    component nb[n];
    var acc = 0;
    for (var i = 0; i < n; i++) {
        ge[i] = GreaterEqThan(bits);
        ge[i].in[0] <== v[i];
        ge[i].in[1] <== lo;
        ge[i].out === 1;
        lt[i] = LessThan(bits);
        lt[i].in[0] <== v[i];
        lt[i].in[1] <== hi;
        lt[i].out === 1;
        nb[i] = Num2Bits(bits);
        nb[i].in <== v[i];
        acc += 1 - nb[i].out[0];
    }
    evens <== acc;
}

component main {public [lo, hi]} = RangeCheck(8, 64);
