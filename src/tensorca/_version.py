"""The package's version, in a module of its own on the base floor: the root package re-exports it as
``tensorca.__version__``, and modules below the root (checkpoint manifests, macrocell and haul files)
import it from here, not up from the lazy root facade."""

__version__ = "0.1.0"
