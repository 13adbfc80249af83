// Placeholder: the NutritionTools module is built in its own issue.
