#!/bin/sh
# Nothing to prepare: plain-pekko-ring is written here (no orig/); its build fetches the Pekko jars.
exit 0
