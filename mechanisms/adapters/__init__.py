"""Pairs built from real differential-privacy libraries' own objects, audited as they ship.

:mod:`pdp_audit.mechanisms.adapters.opendp` wraps an OpenDP ``Measurement``, :mod:`pdp_audit.mechanisms.adapters.
diffprivlib` a diffprivlib mechanism, each on two neighbouring inputs, with the exact privacy loss of the noise the
library draws and the claim its own privacy accounting makes.  The libraries are optional (``pip install opendp
diffprivlib``; a checkout's extra ``.[libraries]`` pins what diffprivlib needs) and imported only by the module that
wraps them.
"""
