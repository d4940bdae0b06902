// Fixture: includes beta, which includes alpha back.
#include "beta/b.h"
