"""The bit-packed engines: 64 cells a word, rules compiled to boolean circuits (``bitpack-cpu`` on
Numba, ``bitpack-gpu`` on Triton), with the circuits, packing, lane and tile layouts they share."""
