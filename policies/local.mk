# policies/: contributions to the build (see Makefile.am).
