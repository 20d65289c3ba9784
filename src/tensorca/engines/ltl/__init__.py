"""The ``ltl-cpu`` engine: Larger than Life and HROT counts on Numba, by running sums."""
