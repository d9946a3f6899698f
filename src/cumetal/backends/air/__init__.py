"""cumetal.backends.air"""
