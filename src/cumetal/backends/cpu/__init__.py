"""cumetal.backends.cpu"""
