"""Grids larger than memory: zarr stores written chunk by chunk, random soups generated chunk by chunk.

:mod:`.store` saves and opens a ``(B, H, W)`` dask array as a zarr store with a checkpoint manifest
(bit-packed for two-state rules); :mod:`.soup` makes a random soup as a lazy dask array, the same
for every chunking. The dask engine (:mod:`tensorca.engines.dask_engine`) steps such arrays, and
``run(..., checkpoint="grid.zarr")`` (:mod:`tensorca.simulate.lazy`) writes each segment to the store.

Importing this package imports nothing: :mod:`.paths` answers "is this a store?" without dask;
:mod:`.store` and :mod:`.soup` import dask and zarr.
"""
