"""The tensor engines: ``torch`` (any torch device, every rule family with a torch step) and
``dense-conv`` (Moore B/S rules as convolutions), with the kernels they share."""
