"""What reaches the mathematics from outside it, the lowest level (below ``mechanisms``, which raises its error): the
one error type for bad user input and the checks of a user's values (``validation``: ``InputError``), the data sets
and the readers of data files (``datasets``), the store of scikit-learn's shipped data sets (``shipped_store``), the
process's BLAS threads (``blas_threads``) and the interruptions a command meets (``interruptions``).  A module here
imports nothing of ours but this package."""
