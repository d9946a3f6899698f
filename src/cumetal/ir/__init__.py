"""cumetal.ir"""
