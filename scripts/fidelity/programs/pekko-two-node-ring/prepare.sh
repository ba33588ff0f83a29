#!/bin/sh
# Nothing to prepare: pekko-two-node-ring is written here (no orig/); its build fetches the Pekko jars.
exit 0
