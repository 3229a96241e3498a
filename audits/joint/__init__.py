"""Several releases of one deployment certified as one joint release (``[[release]]`` tables): the product of the
releases' worst-case pairs (:mod:`.pair`), the releases' configs and the certificate (:mod:`.certificate`), and the
page of their privacy profiles (:mod:`.pages`)."""
