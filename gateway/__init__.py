"""Product Recommendation and Intent-Matching Gateway: the Django project package."""

from gateway.celery import app as celery_app

__all__ = ("celery_app",)
