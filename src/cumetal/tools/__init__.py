"""cumetal.tools"""
