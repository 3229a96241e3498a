"""The black-box audit: an ε lower bound for a mechanism that can only be sampled (a learned test, an exact event
test, the neighbour search, the witness); it refutes, never certifies."""
