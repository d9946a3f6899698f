#pragma once
#define PARAM_OFFSET 0.5f
