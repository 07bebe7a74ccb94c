pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// A chain of two-input Poseidon hashes: h_{i+1} = Poseidon(h_i, m_i).
// circomlib's round constants are generated for BN254; over BLS12-381 they are
// still valid field elements, and the circuit exercises the same structure.
template PoseidonChain(n) {
    signal input seed;
    signal input m[n];
    signal output out;

    component h[n];
    signal acc[n + 1];
    acc[0] <== seed;
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== acc[i];
        h[i].inputs[1] <== m[i];
        acc[i + 1] <== h[i].out;
    }
    out <== acc[n];
}

component main {public [seed]} = PoseidonChain(12);
