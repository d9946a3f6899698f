#include "vector_functions.h"
