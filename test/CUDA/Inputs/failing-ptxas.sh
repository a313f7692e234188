#!/bin/sh
# Stands in for a ptxas that rejects its input: prints a message, fails.
echo "ptxas fatal   : rejected $*" >&2
exit 3
