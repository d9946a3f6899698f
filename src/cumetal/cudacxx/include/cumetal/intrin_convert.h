#pragma once
#include "cumetal/qualifiers.h"
