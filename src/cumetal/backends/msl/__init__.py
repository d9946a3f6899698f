"""cumetal.backends.msl"""
