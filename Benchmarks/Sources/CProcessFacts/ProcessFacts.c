// A C target needs a source file; everything is inline in the header.
#include "ProcessFacts.h"
