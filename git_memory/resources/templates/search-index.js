{# The static site's search index, a script file (a browser refuses fetch() of a local file).
   tojson writes JSON with <, > and & escaped as \u003c, \u003e, \u0026. #}
window.GM_INDEX = {{ entries|tojson }};
