#!/bin/sh
# Nothing to prepare: plain-threads-lbq is run as it is (no orig/: written here).
exit 0
