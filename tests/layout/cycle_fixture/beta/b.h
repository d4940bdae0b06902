// Fixture: closes the cycle alpha -> beta -> alpha.
#include "alpha/a.h"
