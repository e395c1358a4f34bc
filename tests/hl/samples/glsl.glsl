#version 330 core
// Fragment shader
in vec2 uv;
out vec4 color;

uniform sampler2D tex;
uniform float time;

const float PI = 3.14159;

float wave(float x) {
    return sin(x * 2.0 * PI + time) * 0.5 + 0.5;
}

void main() {
    vec3 c = texture(tex, uv).rgb;
    /* tint */
    c *= vec3(wave(uv.x), wave(uv.y), 1.0);
    if (c.r > 0.9) discard;
    color = vec4(c, 1.0);
}
