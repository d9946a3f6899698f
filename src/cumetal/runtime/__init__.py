"""cumetal.runtime"""
