#!/bin/sh
# Nothing to prepare: the source in this folder is the runnable program (no fetched original).
exit 0
