"""tensorca: cellular automata with Golly's semantics on NumPy and PyTorch."""
__version__ = "0.1.0"
