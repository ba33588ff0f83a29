#!/bin/sh
# Nothing to prepare: zog-java is run as it is (no orig/: reconstructed here).
exit 0
