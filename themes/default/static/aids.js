// Reading aids, loaded only on pages with code or notes: a copy button on
// code blocks; a reference's or footnote's text in a popover while its link
// is hovered or focused (Escape closes). Without it links still jump.
(function(){var d=document,s=d.currentScript.dataset,P=d.createElement("div"),cur,N="forEach",Q="querySelectorAll";
if(navigator.clipboard)d[Q]("pre.hl")[N](function(p){var b=d.createElement("button");b.type="button";b.className="copy";b.textContent=s.copy;b.onclick=function(){var c=p.querySelector("code").cloneNode(1);c[Q](".ln")[N](function(n){n.remove()});navigator.clipboard.writeText(c.textContent).then(function(){b.textContent=s.copied;setTimeout(function(){b.textContent=s.copy},2e3)})};p.classList.add("has-copy");p.append(b)});
if(!P.showPopover)return;P.popover="manual";P.className="preview";P.id="preview";P.setAttribute("role","tooltip");d.body.append(P);
function hide(){if(cur){P.hidePopover();cur.removeAttribute("aria-describedby");cur=0}}
P.onmouseleave=hide;d.addEventListener("keydown",function(e){e.key=="Escape"&&hide()});
d[Q]('.citation a[href^="#ref-"],.footnote-ref a')[N](function(a){var t=d.getElementById(decodeURIComponent(a.hash.slice(1)));if(!t)return;
function show(){hide();var c=t.cloneNode(1),r=a.getBoundingClientRect();c[Q]("[id],.footnote-backref")[N](function(n){n.className=="footnote-backref"?n.remove():n.removeAttribute("id")});P.replaceChildren.apply(P,c.childNodes);P.showPopover();a.setAttribute("aria-describedby","preview");cur=a;
var h=P.offsetHeight,y=r.bottom+h>innerHeight&&r.top>h?r.top-h:r.bottom;P.style.left=Math.max(8,Math.min(r.left,d.documentElement.clientWidth-P.offsetWidth-8))+scrollX+"px";P.style.top=y+scrollY+"px"}
a.addEventListener("mouseenter",show);a.addEventListener("focus",show);a.addEventListener("blur",hide);a.addEventListener("mouseleave",function(e){P.contains(e.relatedTarget)||hide()})})})();
