#!/bin/sh
# Nothing to prepare: plain-virtual-ltq is run as it is (no orig/: written here).
exit 0
